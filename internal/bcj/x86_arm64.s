//go:build arm64 && gc && !purego

#include "textflag.h"

// func findE8NEON(b []byte) int
//
// 32 bytes a step: each byte ANDed with FE and compared with E8, the 0/FF
// results weighted 1, 4, 16, 64 within each 32-bit lane and summed
// pairwise twice into a 64-bit syndrome with bit 2j set for a hit at byte
// j, whose trailing zeros give the first hit (as bytes.IndexByte does).
TEXT ·findE8NEON(SB), NOSPLIT, $0-32
	MOVD  b_base+0(FP), R0
	MOVD  b_len+8(FP), R1
	MOVD  R0, R2       // start
	ADD   R0, R1, R3   // end; len is a multiple of 32
	MOVD  $0xFE, R4
	VMOV  R4, V0.B16
	MOVD  $0xE8, R4
	VMOV  R4, V1.B16
	MOVD  $0x40100401, R4
	VMOV  R4, V2.S4
	CMP   R0, R3
	BEQ   none

loop:
	VLD1.P 32(R0), [V3.B16, V4.B16]
	VAND   V0.B16, V3.B16, V3.B16
	VAND   V0.B16, V4.B16, V4.B16
	VCMEQ  V1.B16, V3.B16, V3.B16
	VCMEQ  V1.B16, V4.B16, V4.B16
	VAND   V2.B16, V3.B16, V3.B16
	VAND   V2.B16, V4.B16, V4.B16
	VADDP  V4.B16, V3.B16, V5.B16 // 256 -> 128 bits
	VADDP  V5.B16, V5.B16, V5.B16 // 128 -> 64 bits
	VMOV   V5.D[0], R5
	CBNZ   R5, found
	CMP    R0, R3
	BNE    loop

none:
	MOVD R1, ret+24(FP)
	RET

found:
	RBIT R5, R5
	CLZ  R5, R5
	SUB  R2, R0, R0
	SUB  $32, R0, R0
	ADD  R5>>1, R0, R0
	MOVD R0, ret+24(FP)
	RET
