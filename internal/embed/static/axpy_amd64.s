//go:build !purego

#include "textflag.h"

// func axpyInt8AVX2(dst *float32, a float32, x *int8, n int)
//
// Thirty-two elements a step while they last, then eight: VPMOVSXBD
// widens eight int8 to int32 lanes, VCVTDQ2PS converts them exactly,
// VMULPS multiplies by the broadcast a, VADDPS adds dst.
TEXT ·axpyInt8AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	VBROADCASTSS a+8(FP), Y0
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	CMPQ CX, $4
	JLT  tail

loop4:
	VPMOVSXBD 0(SI), Y1
	VPMOVSXBD 8(SI), Y2
	VPMOVSXBD 16(SI), Y3
	VPMOVSXBD 24(SI), Y4
	VCVTDQ2PS Y1, Y1
	VCVTDQ2PS Y2, Y2
	VCVTDQ2PS Y3, Y3
	VCVTDQ2PS Y4, Y4
	VMULPS    Y0, Y1, Y1
	VMULPS    Y0, Y2, Y2
	VMULPS    Y0, Y3, Y3
	VMULPS    Y0, Y4, Y4
	VADDPS    0(DI), Y1, Y1
	VADDPS    32(DI), Y2, Y2
	VADDPS    64(DI), Y3, Y3
	VADDPS    96(DI), Y4, Y4
	VMOVUPS   Y1, 0(DI)
	VMOVUPS   Y2, 32(DI)
	VMOVUPS   Y3, 64(DI)
	VMOVUPS   Y4, 96(DI)
	ADDQ      $32, SI
	ADDQ      $128, DI
	SUBQ      $4, CX
	CMPQ      CX, $4
	JGE       loop4

tail:
	TESTQ CX, CX
	JZ    done

loop1:
	VPMOVSXBD 0(SI), Y1
	VCVTDQ2PS Y1, Y1
	VMULPS    Y0, Y1, Y1
	VADDPS    0(DI), Y1, Y1
	VMOVUPS   Y1, 0(DI)
	ADDQ      $8, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       loop1

done:
	VZEROUPPER
	RET
