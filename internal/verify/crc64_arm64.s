//go:build arm64 && gc && !purego

#include "textflag.h"

// CRC-64/XZ folding with the 64-bit polynomial multiply (PMULL, PMULL2): the
// PCLMULQDQ algorithm of crc64_amd64.s (Gopal et al., 2009, bit-reflected)
// with the same multipliers. See crc64_arm64.go.

// FOLD folds the 128-bit accumulator acc forward over the distance whose
// multipliers are in k (low doubleword for acc's low, high-degree half),
// using tmp, and XORs in data: acc = acc.lo*k.lo ^ acc.hi*k.hi ^ data.
#define FOLD(acc, k, tmp, data) \
	VPMULL  k.D1, acc.D1, tmp.Q1; \
	VPMULL2 k.D2, acc.D2, acc.Q1; \
	VEOR    tmp.B16, acc.B16, acc.B16; \
	VEOR    data.B16, acc.B16, acc.B16

// func crc64CLMUL(s uint64, p []byte, k *[4]uint64) (lo, hi uint64)
TEXT ·crc64CLMUL(SB), NOSPLIT, $0-56
	MOVD s+0(FP), R0
	MOVD p_base+8(FP), R1
	MOVD p_len+16(FP), R2
	MOVD k+32(FP), R3

	// Four accumulators over the first 64 bytes, the register XORed in.
	VLD1.P 64(R1), [V0.B16, V1.B16, V2.B16, V3.B16]
	FMOVD  R0, F4 // the upper doubleword becomes zero
	VEOR   V4.B16, V0.B16, V0.B16
	SUB    $64, R2
	VLD1   (R3), [V5.D2, V6.D2] // x^575, x^511; x^191, x^127
	CMP    $64, R2
	BLO    fold4

loop64:
	VLD1.P 64(R1), [V16.B16, V17.B16, V18.B16, V19.B16]
	FOLD(V0, V5, V20, V16)
	FOLD(V1, V5, V21, V17)
	FOLD(V2, V5, V22, V18)
	FOLD(V3, V5, V23, V19)
	SUB    $64, R2
	CMP    $64, R2
	BHS    loop64

fold4:
	// Fold the four accumulators into V0, 16 bytes at a time.
	FOLD(V0, V6, V20, V1)
	FOLD(V0, V6, V20, V2)
	FOLD(V0, V6, V20, V3)
	CBZ    R2, done

loop16:
	VLD1.P 16(R1), [V16.B16]
	FOLD(V0, V6, V20, V16)
	SUBS   $16, R2
	BNE    loop16

done:
	VMOV V0.D[0], R4
	VMOV V0.D[1], R5
	MOVD R4, lo+40(FP)
	MOVD R5, hi+48(FP)
	RET
