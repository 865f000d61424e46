package osnames_test

import (
	"fmt"

	"github.com/unpack-dev/unpack/internal/osnames"
)

// How the directory sink uses a policy for each entry, after
// extract.CleanName: Check, then Claim, then write under the fixed name.
func Example() {
	p := osnames.Windows
	names := osnames.NewNames(p)
	for _, name := range []string{"docs/CON.txt", "a:b", "README", "readme"} {
		fixed, warning, err := p.Check(name)
		if err == nil {
			err = names.Claim(name, fixed, false)
		}
		switch {
		case err != nil:
			fmt.Printf("%s: %v\n", name, err)
		case warning != "":
			fmt.Printf("%s: %s\n", name, warning)
		default:
			fmt.Printf("%s: written as it is\n", name)
		}
	}
	// Output:
	// docs/CON.txt: stored as "docs/_CON.txt": a Windows device name (CON, NUL, COM1, ...) even with an extension (prefixed with _)
	// a:b: stored as "a_b": Windows names cannot hold <>:"\|?* or control characters (written as _)
	// README: written as it is
	// readme: "readme" and "README" are one file on Windows
}
