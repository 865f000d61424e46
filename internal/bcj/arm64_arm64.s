//go:build arm64 && gc && !purego

#include "textflag.h"

// The program counters of the four words of a group, from its first.
DATA lanepc<>+0(SB)/4, $0
DATA lanepc<>+4(SB)/4, $4
DATA lanepc<>+8(SB)/4, $8
DATA lanepc<>+12(SB)/4, $12
GLOBL lanepc<>(SB), RODATA|NOPTR, $16

// SPLAT broadcasts the 32-bit constant c to every lane of v.
#define SPLAT(c, v) \
	MOVW $c, R4; \
	VMOV R4, v.S4

// func convertARM64NEON(buf []byte, pos uint32)
//
// Four instructions a step, one per 32-bit lane: both conversions of
// convertARM64Generic are computed for every lane (BL in V3, ADRP in V8)
// and VBIT inserts each where its mask (V1, V4) holds; the masks are
// disjoint (BL is 100101 in bits 31..26, ADRP 10000 in bits 28..24).
TEXT ·convertARM64NEON(SB), NOSPLIT, $0-28
	MOVD  buf_base+0(FP), R0
	MOVD  buf_len+8(FP), R1
	MOVWU pos+24(FP), R2
	CBZ   R1, done
	VMOV  R2, V20.S4
	MOVD  $lanepc<>(SB), R3
	VLD1  (R3), [V16.S4]
	VADD  V16.S4, V20.S4, V20.S4 // pc of each lane
	SPLAT(16, V21)
	SPLAT(0x25, V22)
	SPLAT(0x03FFFFFF, V23)
	SPLAT(0x94000000, V24)
	SPLAT(0x9F000000, V25)
	SPLAT(0x90000000, V26)
	SPLAT(3, V27)
	SPLAT(0x001FFFFC, V28)
	SPLAT(0x00020000, V29)
	SPLAT(0x001C0000, V30)
	SPLAT(0x9000001F, V31)
	SPLAT(0x0003FFFC, V19)
	SPLAT(0x00E00000, V18)
	VEOR  V17.B16, V17.B16, V17.B16 // zero

loop:
	VLD1 (R0), [V0.S4]

	// BL: 0x94000000 | (ins - pc>>2) & 0x03FFFFFF where ins>>26 == 0x25.
	VUSHR $26, V0.S4, V1.S4
	VCMEQ V22.S4, V1.S4, V1.S4
	VUSHR $2, V20.S4, V2.S4
	VSUB  V2.S4, V0.S4, V3.S4
	VAND  V23.B16, V3.B16, V3.B16
	VORR  V24.B16, V3.B16, V3.B16

	// ADRP where ins & 0x9F000000 == 0x90000000 and the source page src is
	// within ±512 MiB: (src + 0x20000) & 0x1C0000 == 0.
	VAND  V25.B16, V0.B16, V4.B16
	VCMEQ V26.S4, V4.S4, V4.S4
	VUSHR $29, V0.S4, V5.S4
	VAND  V27.B16, V5.B16, V5.B16
	VUSHR $3, V0.S4, V6.S4
	VAND  V28.B16, V6.B16, V6.B16
	VORR  V6.B16, V5.B16, V5.B16 // src
	VADD  V29.S4, V5.S4, V6.S4
	VAND  V30.B16, V6.B16, V6.B16
	VCMEQ V17.S4, V6.S4, V6.S4
	VAND  V6.B16, V4.B16, V4.B16

	// dest = src - pc>>12 put back: ins & 0x9000001F | dest<<29 (the low
	// two bits) | (dest & 0x3FFFC)<<3 | -(dest & 0x20000) & 0xE00000.
	VUSHR $12, V20.S4, V7.S4
	VSUB  V7.S4, V5.S4, V5.S4
	VAND  V31.B16, V0.B16, V8.B16
	VSHL  $29, V5.S4, V9.S4
	VORR  V9.B16, V8.B16, V8.B16
	VAND  V19.B16, V5.B16, V9.B16
	VSHL  $3, V9.S4, V9.S4
	VORR  V9.B16, V8.B16, V8.B16
	VAND  V29.B16, V5.B16, V9.B16
	VSUB  V9.S4, V17.S4, V9.S4
	VAND  V18.B16, V9.B16, V9.B16
	VORR  V9.B16, V8.B16, V8.B16

	VBIT   V1.B16, V3.B16, V0.B16
	VBIT   V4.B16, V8.B16, V0.B16
	VST1.P [V0.S4], 16(R0)
	VADD   V21.S4, V20.S4, V20.S4
	SUBS   $16, R1
	BNE    loop

done:
	RET
