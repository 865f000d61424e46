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

// updState holds what updateModelI (or updateModelH) hands to
// updateModelRest: the suffix's state s, createSuccessorsI's results (r, num, head, upSucc), and where
// the loop stopped (r) with the found state's successor and the text
// position it links.
type updState struct {
	s, r         uint32
	num          uint
	head, upSucc uint32
	fSucc, succ  uint32
}

// updateModelI's other codes: where it left the update to Go.
const (
	// createSuccessors' rest, maxCtx's order at the model's
	updTopRest = updGeneric + 1 + iota
	updRestore // restoreModel from maxCtx (variant H: restart)
	updReduce  // reduceOrder, then updateContexts (variant I)
	updMidRest // createSuccessors' rest, then updateContexts
	updLoop    // the loop from context r on
)

// updateModelI is ModelI.updateModelGeneric in assembly (succ_amd64.s)
// but for the allocator's rare cases, reduceOrder and restoreModel: it
// returns updDone, or where Go is to go on, with m.upd. Unlike
// updateModelGeneric it also sets minCtx to maxCtx, as its callers do
// after updateModel (updateModelRest too).
//
//go:noescape
func updateModelI(m *ModelI) (code uint32)

// updateModel is updateModelGeneric, in assembly but for what
// updateModelRest does.
func (m *ModelI) updateModel() {
	if code := updateModelI(m); code != updDone {
		m.updateModelRest(code)
	}
}

// updateModelRest does what updateModelI left to Go, by its code, and
// sets minCtx to maxCtx.
//
//go:noinline
func (m *ModelI) updateModelRest(code uint32) {
	u := m.upd
	m.upd = updState{}
	switch code {
	case updGeneric:
		m.updateModelGeneric()
	case updTopRest:
		cs := m.createSuccessorsRest(true, u.s, m.minCtx, u.r, u.num, u.head, u.upSucc)
		heap := m.heap
		put32((*[6]byte)(heap[uint(m.found)&(uint(len(heap))-heapPad):])[2:], cs)
		if cs == 0 {
			m.restoreModel(m.maxCtx)
		} else {
			m.maxCtx = cs
		}
	case updRestore:
		m.restoreModel(m.maxCtx)
	case updReduce, updMidRest:
		succ := m.text
		var cs uint32
		if code == updReduce {
			cs = m.reduceOrder(u.s, m.minCtx)
		} else {
			cs = m.createSuccessorsRest(false, u.s, m.minCtx, u.r, u.num, u.head, u.upSucc)
		}
		if cs == 0 {
			m.restoreModel(m.maxCtx)
		} else {
			m.updateContexts(cs, succ)
		}
	case updLoop:
		m.updateContextsFrom(u.r, u.fSucc, u.succ)
	}
	m.minCtx = m.maxCtx
}

// updateModelH is ModelH.updateModelGeneric in assembly, as updateModelI
// (no reduceOrder; restart for restoreModel).
//
//go:noescape
func updateModelH(m *ModelH) (code uint32)

// updateModel is updateModelGeneric, in assembly but for what
// updateModelRest does.
func (m *ModelH) updateModel() {
	if code := updateModelH(m); code != updDone {
		m.updateModelRest(code)
	}
}

// updateModelRest does what updateModelH left to Go, by its code.
//
//go:noinline
func (m *ModelH) updateModelRest(code uint32) {
	u := m.upd
	m.upd = updState{}
	switch code {
	case updGeneric:
		m.updateModelGeneric()
	case updTopRest:
		c := m.createSuccessorsRest(true, u.r, u.num, u.head, u.upSucc)
		m.minCtx, m.maxCtx = c, c
		if c == 0 {
			m.restart()
			return
		}
		heap := m.heap
		put32((*[6]byte)(heap[uint(m.found)&(uint(len(heap))-heapPad):])[2:], c)
	case updRestore:
		m.restart()
	case updMidRest:
		succ := m.text
		fSucc := m.createSuccessorsRest(false, u.r, u.num, u.head, u.upSucc)
		if fSucc == 0 {
			m.restart()
			return
		}
		succ = fallSucc(&m.orderFall, &m.text, m.maxCtx, m.minCtx, fSucc, succ)
		m.updateContexts(m.maxCtx, fSucc, succ)
	case updLoop:
		m.updateContexts(u.r, u.fSucc, u.succ)
	}
}
