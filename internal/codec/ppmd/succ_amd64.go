//go:build amd64 && gc && !purego

package ppmd

// createSuccessorsI is ModelI.createSuccessorsGeneric in assembly
// (succ_amd64.s) up to the allocations that the allocator's common case
// does not serve: it returns num 0 and the result, or the context made
// last and the num contexts left to make (by newContexts, with head and
// upSucc), num succDivZero where the generic divides by zero, or
// succGeneric, having done nothing, when the tests turn useEscapeAsm
// off. createSuccessorsRest does what is left.
//
//go:noescape
func createSuccessorsI(m *ModelI, skip bool, s1, c uint32) (r uint32, num uint, head, upSucc uint32)

// createSuccessorsH is ModelH.createSuccessorsGeneric in assembly, as
// createSuccessorsI.
//
//go:noescape
func createSuccessorsH(m *ModelH, skip bool) (r uint32, num uint, head, upSucc uint32)

// updateLoopI is ModelI.updateModel's loop over the contexts from c up
// to mc in assembly (succ_amd64.s), up to the first context that needs
// the allocator's rare case, which it returns (mc when done); f2 is
// twice the found state's frequency.
//
//go:noescape
func updateLoopI(m *ModelI, c, mc, ns, s0, f2, succ uint32, fSym, flag byte) (stop uint32)

// updateLoopH is ModelH.updateModel's loop in assembly, as updateLoopI.
//
//go:noescape
func updateLoopH(m *ModelH, c, mc, ns, s0, f2, succ uint32, fSym byte) (stop uint32)

// createSuccessors is createSuccessorsGeneric, in assembly but for the
// allocator's rare cases. updateModel calls createSuccessorsI and
// createSuccessorsRest itself, so that the common case costs one call.
func (m *ModelI) createSuccessors(skip bool, s1, c uint32) uint32 {
	r, num, head, upSucc := createSuccessorsI(m, skip, s1, c)
	if num != 0 {
		r = m.createSuccessorsRest(skip, s1, c, r, num, head, upSucc)
	}
	return r
}
