//go:build amd64 && gc && !purego

#include "textflag.h"

// CRC-64/XZ folding with carry-less multiplication (PCLMULQDQ), after Intel's
// "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction"
// (Gopal et al., 2009), in its bit-reflected form. See crc64_amd64.go.

// FOLD folds the 128-bit accumulator acc forward over the distance whose
// multipliers are in k (low qword for acc's low, high-degree half), using
// tmp, and XORs in data: acc = acc.lo*k.lo ^ acc.hi*k.hi ^ data.
#define FOLD(acc, k, tmp, data) \
	MOVO      acc, tmp;   \
	PCLMULQDQ $0x00, k, acc; \
	PCLMULQDQ $0x11, k, tmp; \
	PXOR      tmp, acc;   \
	PXOR      data, acc

// func crc64CLMUL(s uint64, p []byte, k *[4]uint64) (lo, hi uint64)
TEXT ·crc64CLMUL(SB), NOSPLIT, $0-56
	MOVQ s+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	MOVQ k+32(FP), DX

	// Four accumulators over the first 64 bytes, the register XORed in.
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MOVQ  AX, X4
	PXOR  X4, X0
	ADDQ  $64, SI
	SUBQ  $64, CX
	MOVOU 0(DX), X5 // x^575, x^511

loop64:
	CMPQ  CX, $64
	JB    fold4
	MOVOU 0(SI), X8
	MOVOU 16(SI), X9
	MOVOU 32(SI), X10
	MOVOU 48(SI), X11
	FOLD(X0, X5, X6, X8)
	FOLD(X1, X5, X7, X9)
	FOLD(X2, X5, X12, X10)
	FOLD(X3, X5, X13, X11)
	ADDQ  $64, SI
	SUBQ  $64, CX
	JMP   loop64

fold4:
	// Fold the four accumulators into X3, 16 bytes at a time.
	MOVOU 16(DX), X5 // x^191, x^127
	FOLD(X0, X5, X6, X1)
	FOLD(X0, X5, X6, X2)
	FOLD(X0, X5, X6, X3)

loop16:
	CMPQ  CX, $16
	JB    done
	MOVOU 0(SI), X8
	FOLD(X0, X5, X6, X8)
	ADDQ  $16, SI
	SUBQ  $16, CX
	JMP   loop16

done:
	MOVQ   X0, AX
	PEXTRQ $1, X0, BX
	MOVQ   AX, lo+40(FP)
	MOVQ   BX, hi+48(FP)
	RET
