//go:build amd64 && gc && !purego

#include "textflag.h"

// Byte sums with PSADBW: the sum of absolute differences of each group of
// eight bytes against zero is their sum, in a 64-bit lane. Four
// accumulators keep four loads in flight. (AVX2's 32-byte VPSADBW is no
// faster: the loop runs at the speed of the L2 cache.) See sum32_amd64.go.

// SUM64 adds the byte sums of the 64 bytes at off(SI) to the accumulators
// X1 to X4, 16 bytes each (X0 is zero).
#define SUM64(off) \
	MOVOU  (off)(SI), X5;    \
	MOVOU  (off+16)(SI), X6; \
	MOVOU  (off+32)(SI), X7; \
	MOVOU  (off+48)(SI), X8; \
	PSADBW X0, X5;           \
	PSADBW X0, X6;           \
	PSADBW X0, X7;           \
	PSADBW X0, X8;           \
	PADDQ  X5, X1;           \
	PADDQ  X6, X2;           \
	PADDQ  X7, X3;           \
	PADDQ  X8, X4

// func sum32SSE2(p []byte) uint64
TEXT ·sum32SSE2(SB), NOSPLIT, $0-32
	MOVQ  p_base+0(FP), SI
	MOVQ  p_len+8(FP), CX
	SHRQ  $7, CX
	PXOR  X0, X0
	PXOR  X1, X1
	PXOR  X2, X2
	PXOR  X3, X3
	PXOR  X4, X4
	TESTQ CX, CX
	JZ    sse2done

sse2loop:
	SUM64(0)
	SUM64(64)
	ADDQ   $128, SI
	DECQ   CX
	JNZ    sse2loop

sse2done:
	PADDQ  X2, X1
	PADDQ  X4, X3
	PADDQ  X3, X1
	PSHUFD $0x4e, X1, X2
	PADDQ  X2, X1
	MOVQ   X1, AX
	MOVQ   AX, ret+24(FP)
	RET
