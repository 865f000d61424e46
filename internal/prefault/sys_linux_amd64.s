//go:build linux && !purego

#include "textflag.h"

// func rawSyscall6(num, a1, a2, a3, a4, a5, a6 uintptr) (r, errno uintptr)
TEXT ·rawSyscall6(SB), NOSPLIT, $0-72
	MOVQ	num+0(FP), AX
	MOVQ	a1+8(FP), DI
	MOVQ	a2+16(FP), SI
	MOVQ	a3+24(FP), DX
	MOVQ	a4+32(FP), R10
	MOVQ	a5+40(FP), R8
	MOVQ	a6+48(FP), R9
	SYSCALL
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	NEGQ	AX
	MOVQ	$0, r+56(FP)
	MOVQ	AX, errno+64(FP)
	RET
ok:
	MOVQ	AX, r+56(FP)
	MOVQ	$0, errno+64(FP)
	RET
