package rar
import ("testing";"os";"fmt";"io";"github.com/unpack-dev/unpack/internal/archive")
func TestDbg(t *testing.T){
  for _, p := range []string{os.Getenv("F")} {
    data,_ := os.ReadFile(p)
    r, err := openTest4(t, p, data, &archive.Options{Passwords: []string{"password"}})
    if err != nil { t.Fatal(err) }
    for { e, err := r.Next(); if err != nil { fmt.Println("ERR", err); break }
      n, err := io.Copy(io.Discard, r)
      fmt.Printf("%q %v size=%d %s n=%d err=%v\n", e.Name, e.Type, e.Size, e.Method, n, err) }
  }
}
