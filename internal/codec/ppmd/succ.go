package ppmd

// Sentinels of createSuccessorsI's and createSuccessorsH's num:
// succGeneric when the assembly is off (the tests' twins) or absent, and
// createSuccessorsRest runs all of the Go code; succDivZero where the Go
// code divides by zero (a context whose SummFreq leaves no escape
// frequency: never in a model, not reached by any test or fuzzer), on
// which it panics as the Go code does.
const (
	succGeneric = ^uint(0) - 1
	succDivZero = ^uint(0)
)

// createSuccessorsRest finishes what createSuccessorsI left: the num
// contexts left to make from r, or all of createSuccessorsGeneric.
//
//go:noinline
func (m *ModelI) createSuccessorsRest(skip bool, s1, c, r uint32, num uint, head, upSucc uint32) uint32 {
	switch num {
	case succGeneric:
		return m.createSuccessorsGeneric(skip, s1, c)
	case succDivZero:
		panic("ppmd: createSuccessors: integer divide by zero")
	}
	return m.newContexts(r, num, head, upSucc)
}

// createSuccessorsRest finishes what createSuccessorsH left, as
// ModelI.createSuccessorsRest.
//
//go:noinline
func (m *ModelH) createSuccessorsRest(skip bool, r uint32, num uint, head, upSucc uint32) uint32 {
	switch num {
	case succGeneric:
		return m.createSuccessorsGeneric(skip)
	case succDivZero:
		panic("ppmd: createSuccessors: integer divide by zero")
	}
	return m.newContexts(r, num, head, upSucc)
}

// fallSucc is updateModel's step before the contexts' loop in both
// variants: orderFall down by one and, where it reaches 0, fSucc as the
// successor the contexts get, the text position just written taken back
// unless maxCtx is minCtx. It returns that successor (else succ).
func fallSucc[T int | uint32](orderFall *T, text *uint32, maxCtx, minCtx, fSucc, succ uint32) uint32 {
	*orderFall--
	if *orderFall == 0 {
		succ = fSucc
		if maxCtx != minCtx {
			*text--
		}
	}
	return succ
}

// updateModelI's and updateModelH's codes (the others on amd64):
// updDone when they did all of updateModel, updGeneric when
// updateModelRest is to do it all (updateModelGeneric).
const (
	updDone = iota
	updGeneric
)
