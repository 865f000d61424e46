package testutil

// FailWriter accepts N bytes, then writes what is left of N and returns
// Err: a sink that fails part way (a closed pipe, a full disk). With Err
// nil it returns a short write without an error instead.
type FailWriter struct {
	N   int
	Err error
}

func (w *FailWriter) Write(p []byte) (int, error) {
	if len(p) <= w.N {
		w.N -= len(p)
		return len(p), nil
	}
	k := w.N
	w.N = 0
	return k, w.Err
}
