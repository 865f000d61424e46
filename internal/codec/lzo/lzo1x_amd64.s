//go:build amd64 && gc && !purego

#include "textflag.h"

// Registers: SI the next input byte, R8 the input's end; DI the next
// output byte, R9 the output's start, R10 its end; R11 the state (the
// literals the last instruction copied: 0, 1-3, or 4 for a longer run);
// AX the instruction byte, BX a length, DX a distance; CX, R12, R13
// scratch.

// EXTEND adds a long length's zero bytes (255 each) and its final byte
// plus base to BX (0 on entry), failing where the input ends first or the
// length passes the output's size.
#define EXTEND(base, loop, done) \
loop: \
	CMPQ	SI, R8; \
	JAE	fail; \
	MOVBQZX	(SI), CX; \
	INCQ	SI; \
	TESTQ	CX, CX; \
	JNZ	done; \
	ADDQ	$255, BX; \
	MOVQ	R10, R12; \
	SUBQ	R9, R12; \
	CMPQ	BX, R12; \
	JHI	fail; \
	JMP	loop; \
done: \
	ADDQ	$base, BX; \
	ADDQ	CX, BX

// COPYBYTES copies BX (> 0) bytes from src to DI one at a time, through
// tmp, with CX the index.
#define COPYBYTES(src, tmp, loop) \
	XORQ	CX, CX; \
loop: \
	MOVB	(src)(CX*1), tmp; \
	MOVB	tmp, (DI)(CX*1); \
	INCQ	CX; \
	CMPQ	CX, BX; \
	JLT	loop

// LITERALS copies BX bytes from SI to DI and advances both, failing where
// either buffer has less room: 16 bytes at a time where both have 16
// bytes of room past the run, else one at a time.
#define LITERALS(wide, narrow, narrowloop, done) \
	MOVQ	R8, CX; \
	SUBQ	SI, CX; \
	CMPQ	BX, CX; \
	JHI	fail; \
	MOVQ	R10, CX; \
	SUBQ	DI, CX; \
	CMPQ	BX, CX; \
	JHI	fail; \
	MOVQ	R8, CX; \
	SUBQ	SI, CX; \
	SUBQ	BX, CX; \
	CMPQ	CX, $16; \
	JLT	narrow; \
	MOVQ	R10, CX; \
	SUBQ	DI, CX; \
	SUBQ	BX, CX; \
	CMPQ	CX, $16; \
	JLT	narrow; \
	XORQ	CX, CX; \
wide: \
	MOVOU	(SI)(CX*1), X0; \
	MOVOU	X0, (DI)(CX*1); \
	ADDQ	$16, CX; \
	CMPQ	CX, BX; \
	JLT	wide; \
	ADDQ	BX, SI; \
	ADDQ	BX, DI; \
	JMP	done; \
narrow: \
	TESTQ	BX, BX; \
	JZ	done; \
	COPYBYTES(SI, R12, narrowloop); \
	ADDQ	BX, SI; \
	ADDQ	BX, DI; \
done:

// func decompress1X(dst, src []byte) int
TEXT ·decompress1X(SB), NOSPLIT, $0-56
	MOVQ	dst_base+0(FP), R9
	MOVQ	dst_len+8(FP), R10
	ADDQ	R9, R10
	MOVQ	R9, DI
	MOVQ	src_base+24(FP), SI
	MOVQ	src_len+32(FP), R8
	TESTQ	R8, R8
	JZ	fail
	ADDQ	SI, R8
	XORQ	R11, R11
	MOVBQZX	(SI), AX
	CMPQ	AX, $17
	JLS	loop

	// A first byte above 17: a run of that minus 17 literals.
	LEAQ	-17(AX), BX
	INCQ	SI
	MOVQ	$4, R11
	CMPQ	BX, R11
	CMOVQLT	BX, R11
	LITERALS(firstwide, firstnarrow, firstnarrowloop, firstdone)

loop:
	CMPQ	SI, R8
	JAE	fail
	MOVBQZX	(SI), AX
	INCQ	SI
	CMPQ	AX, $64
	JAE	m2
	CMPQ	AX, $32
	JAE	m3
	CMPQ	AX, $16
	JAE	m4
	TESTQ	R11, R11
	JZ	run

	// M1: 2 bytes within 1 KiB, or 3 bytes 2-3 KiB back after a run.
	CMPQ	SI, R8
	JAE	fail
	MOVQ	AX, DX
	SHRQ	$2, DX
	INCQ	DX
	MOVBQZX	(SI), CX
	SHLQ	$2, CX
	ADDQ	CX, DX
	INCQ	SI
	MOVQ	$2, BX
	CMPQ	R11, $4
	JNE	match
	ADDQ	$0x800, DX
	MOVQ	$3, BX
	JMP	match

m2: // 3 to 8 bytes within 2 KiB
	CMPQ	SI, R8
	JAE	fail
	MOVQ	AX, DX
	SHRQ	$2, DX
	ANDQ	$7, DX
	INCQ	DX
	MOVBQZX	(SI), CX
	SHLQ	$3, CX
	ADDQ	CX, DX
	INCQ	SI
	MOVQ	AX, BX
	SHRQ	$5, BX
	INCQ	BX
	JMP	match

m3: // within 16 KiB
	MOVQ	AX, BX
	ANDQ	$31, BX
	JNZ	m3len
	EXTEND(31, m3ext, m3extdone)
m3len:
	ADDQ	$2, BX
	MOVQ	R8, CX
	SUBQ	SI, CX
	CMPQ	CX, $2
	JLT	fail
	MOVBQZX	(SI), DX
	SHRQ	$2, DX
	INCQ	DX
	MOVBQZX	1(SI), CX
	SHLQ	$6, CX
	ADDQ	CX, DX
	ADDQ	$2, SI
	JMP	match

m4: // 16 to 48 KiB, or the end
	MOVQ	AX, R13
	ANDQ	$8, R13
	SHLQ	$11, R13
	MOVQ	AX, BX
	ANDQ	$7, BX
	JNZ	m4len
	EXTEND(7, m4ext, m4extdone)
m4len:
	ADDQ	$2, BX
	MOVQ	R8, CX
	SUBQ	SI, CX
	CMPQ	CX, $2
	JLT	fail
	MOVBQZX	(SI), DX
	SHRQ	$2, DX
	ADDQ	R13, DX
	MOVBQZX	1(SI), CX
	SHLQ	$6, CX
	ADDQ	CX, DX
	ADDQ	$2, SI
	TESTQ	DX, DX
	JNZ	m4far
	CMPQ	SI, R8 // the end marker: the input must end with it
	JNE	fail
	SUBQ	R9, DI
	MOVQ	DI, ret+48(FP)
	RET
m4far:
	ADDQ	$0x4000, DX
	JMP	match

run: // a run of 4 or more literals
	MOVQ	AX, BX
	TESTQ	BX, BX
	JNZ	runlen
	EXTEND(15, runext, runextdone)
runlen:
	ADDQ	$3, BX
	MOVQ	$4, R11
	LITERALS(runwide, runnarrow, runnarrowloop, rundone)
	JMP	loop

match: // BX bytes from DX back
	MOVQ	DI, CX
	SUBQ	R9, CX
	CMPQ	DX, CX
	JHI	fail
	MOVQ	R10, CX
	SUBQ	DI, CX
	CMPQ	BX, CX
	JHI	fail
	MOVQ	DI, R12
	SUBQ	DX, R12
	CMPQ	DX, $8
	JLT	bytewise
	SUBQ	BX, CX
	CMPQ	CX, $8
	JLT	bytewise
	// Word by word: each word read ends at or before the one being
	// written, so it is already written.
	XORQ	CX, CX
words:
	MOVQ	(R12)(CX*1), R13
	MOVQ	R13, (DI)(CX*1)
	ADDQ	$8, CX
	CMPQ	CX, BX
	JLT	words
	ADDQ	BX, DI
	JMP	trailing
bytewise:
	COPYBYTES(R12, R13, byteloop)
	ADDQ	BX, DI

trailing: // 0 to 3 literals: the low bits of the match's byte before its last
	MOVBQZX	-2(SI), R11
	ANDQ	$3, R11
	MOVQ	R8, CX
	SUBQ	SI, CX
	MOVQ	R10, R13
	SUBQ	DI, R13
	CMPQ	CX, $8
	JLT	trailingnarrow
	CMPQ	R13, $8
	JLT	trailingnarrow
	MOVQ	(SI), AX
	MOVQ	AX, (DI)
	ADDQ	R11, SI
	ADDQ	R11, DI
	JMP	loop
trailingnarrow:
	CMPQ	R11, CX
	JHI	fail
	CMPQ	R11, R13
	JHI	fail
	MOVQ	R11, BX
	TESTQ	BX, BX
	JZ	loop
	COPYBYTES(SI, R12, trailingloop)
	ADDQ	BX, SI
	ADDQ	BX, DI
	JMP	loop

fail:
	MOVQ	$-1, ret+48(FP)
	RET
