//go:build !purego

#include "textflag.h"

// lanebits<> holds 1<<i in the i-th of 16 16-bit lanes: ANDed with a
// broadcast of 16 sign bits, lane i keeps bit i.
DATA lanebits<>+0(SB)/8, $0x0008000400020001
DATA lanebits<>+8(SB)/8, $0x0080004000200010
DATA lanebits<>+16(SB)/8, $0x0800040002000100
DATA lanebits<>+24(SB)/8, $0x8000400020001000
GLOBL lanebits<>(SB), RODATA|NOPTR, $32

// func dotPackedRowsAVX2(q *int16, packed *byte, signs *byte, rows *int32, dots *int32, n int, rowBytes int, signBytes int, blocks int)
//
// For each of n rows: the i-th row (rows[j]) starts at packed +
// i·rowBytes and its sign bits at signs + i·signBytes, and its dot
// product with q goes to dots[j]. Sixteen elements a block: the 14 bytes
// of their 7-bit magnitudes are spread to one a byte by two PDEPs (the
// second reads the 8 bytes ending at the block's end, shifted, so no read
// passes the row), widened to 16-bit lanes, negated where their sign bit
// is clear ((m ^ -1) - -1), multiplied by the query's lanes and summed in
// pairs (VPMADDWD), and added to eight 32-bit sums. While a row is
// scored, the row eight places on in rows is prefetched: the rows are
// scattered through the vector file, and a row read cold from memory
// waited on every one of its cache lines in turn.
TEXT ·dotPackedRowsAVX2(SB), NOSPLIT, $0-72
	MOVQ packed+8(FP), R10
	MOVQ signs+16(FP), R11
	MOVQ rows+24(FP), R12
	MOVQ dots+32(FP), R13
	MOVQ n+40(FP), R14
	MOVQ $0x7F7F7F7F7F7F7F7F, R8
	VMOVDQU lanebits<>(SB), Y5
	VPXOR Y6, Y6, Y6
	TESTQ R14, R14
	JZ rdone

rrow:
	CMPQ R14, $8
	JLE rscore
	MOVLQSX 32(R12), R9
	MOVQ R9, AX
	IMULQ rowBytes+48(FP), AX
	ADDQ R10, AX
	MOVQ rowBytes+48(FP), CX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 192(AX)
	PREFETCHT0 -1(AX)(CX*1)
	IMULQ signBytes+56(FP), R9
	ADDQ R11, R9
	PREFETCHT0 (R9)

rscore:
	MOVLQSX (R12), R9
	MOVQ R9, SI
	IMULQ rowBytes+48(FP), SI
	ADDQ R10, SI
	MOVQ R9, DX
	IMULQ signBytes+56(FP), DX
	ADDQ R11, DX
	MOVQ q+0(FP), DI
	MOVQ blocks+64(FP), CX
	VPXOR Y0, Y0, Y0

rloop:
	MOVQ (SI), AX
	PDEPQ R8, AX, AX
	MOVQ 6(SI), BX
	SHRQ $8, BX
	PDEPQ R8, BX, BX
	VMOVQ AX, X1
	VPINSRQ $1, BX, X1, X1
	VPMOVZXBW X1, Y1
	MOVWLZX (DX), R9
	VMOVD R9, X2
	VPBROADCASTW X2, Y2
	VPAND Y5, Y2, Y2
	VPCMPEQW Y6, Y2, Y2
	VPXOR Y2, Y1, Y1
	VPSUBW Y2, Y1, Y1
	VPMADDWD (DI), Y1, Y1
	VPADDD Y1, Y0, Y0
	ADDQ $14, SI
	ADDQ $2, DX
	ADDQ $32, DI
	DECQ CX
	JNZ rloop

	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, (R13)
	ADDQ $4, R12
	ADDQ $4, R13
	DECQ R14
	JNZ rrow

rdone:
	VZEROUPPER
	RET

// func hammingAVX512(signs *uint64, q *uint64, ham *uint16, count *int32, count2 *int32, pairs int)
//
// Two rows of four sign words a step: XOR with the query's words (held
// twice), a popcount of each word (VPOPCNTQ), and each row's four counts
// summed by two shuffle-and-adds. The first row's distance is counted in
// count, the second's in count2, so that consecutive increments of one
// distance do not wait on each other.
TEXT ·hammingAVX512(SB), NOSPLIT, $0-48
	MOVQ signs+0(FP), SI
	MOVQ q+8(FP), AX
	MOVQ ham+16(FP), DI
	MOVQ count+24(FP), R8
	MOVQ count2+32(FP), R9
	MOVQ pairs+40(FP), CX
	VBROADCASTI64X4 (AX), Z0
	TESTQ CX, CX
	JZ hdone

hloop:
	VPXORQ (SI), Z0, Z1
	VPOPCNTQ Z1, Z1
	VPSHUFD $0x4E, Z1, Z2
	VPADDQ Z2, Z1, Z1
	VSHUFI64X2 $0xB1, Z1, Z1, Z2
	VPADDQ Z2, Z1, Z1
	VMOVQ X1, AX
	VEXTRACTI64X4 $1, Z1, Y2
	VMOVQ X2, BX
	MOVW AX, (DI)
	MOVW BX, 2(DI)
	INCL (R8)(AX*4)
	INCL (R9)(BX*4)
	ADDQ $64, SI
	ADDQ $4, DI
	DECQ CX
	JNZ hloop

hdone:
	VZEROUPPER
	RET
