package accesstest

import (
	"crypto/sha256"
	"encoding/hex"
)

// A small QR code encoder (ISO/IEC 18004), enough for the fake's visitor
// codes: byte mode, error correction level L, versions 1 to 5 (one
// Reed-Solomon block each, up to 106 bytes), mask pattern 0. Longer texts
// are replaced by their SHA-256 in hex.

// qrVersions holds, per version 1..5 at level L, the total and the error
// correction codeword counts.
var qrVersions = [...]struct{ total, ec int }{{26, 7}, {44, 10}, {70, 15}, {100, 20}, {134, 26}}

// qrMatrix returns the modules of the QR code for text, true for dark,
// as [row][column].
func qrMatrix(text string) [][]bool {
	data := []byte(text)
	ver := 0
	for ver < len(qrVersions) && 4+8+8*len(data) > 8*(qrVersions[ver].total-qrVersions[ver].ec) {
		ver++
	}
	if ver == len(qrVersions) {
		sum := sha256.Sum256(data)
		return qrMatrix(hex.EncodeToString(sum[:]))
	}
	v := qrVersions[ver]
	ver++ // 1-based from here
	codewords := qrData(data, v.total-v.ec)
	codewords = append(codewords, rsRemainder(codewords, rsDivisor(v.ec))...)
	q := newQR(ver)
	q.drawFunctionPatterns()
	q.drawCodewords(codewords)
	q.applyMask0()
	q.drawFormatBits(0)
	return q.mod
}

// qrData encodes text in byte mode and pads it to n codewords.
func qrData(text []byte, n int) []byte {
	var bits []bool
	put := func(v, count int) {
		for i := count - 1; i >= 0; i-- {
			bits = append(bits, v>>i&1 == 1)
		}
	}
	put(0b0100, 4) // byte mode
	put(len(text), 8)
	for _, b := range text {
		put(int(b), 8)
	}
	put(0, min(4, 8*n-len(bits))) // terminator
	for len(bits)%8 != 0 {
		bits = append(bits, false)
	}
	out := make([]byte, 0, n)
	for i := 0; i < len(bits); i += 8 {
		var b byte
		for j := range 8 {
			if bits[i+j] {
				b |= 1 << (7 - j)
			}
		}
		out = append(out, b)
	}
	for pad := byte(0xEC); len(out) < n; pad ^= 0xEC ^ 0x11 {
		out = append(out, pad)
	}
	return out
}

// gfMul multiplies in GF(2^8) modulo x^8+x^4+x^3+x^2+1.
func gfMul(x, y byte) byte {
	var z int
	for i := 7; i >= 0; i-- {
		z = z<<1 ^ (z>>7)*0x11D
		z ^= int(y>>i&1) * int(x)
	}
	return byte(z)
}

// rsDivisor is the generator polynomial of degree n (leading 1 dropped).
func rsDivisor(n int) []byte {
	res := make([]byte, n)
	res[n-1] = 1
	root := byte(1)
	for range n {
		for j := range res {
			res[j] = gfMul(res[j], root)
			if j+1 < len(res) {
				res[j] ^= res[j+1]
			}
		}
		root = gfMul(root, 2)
	}
	return res
}

// rsRemainder is the error correction codewords of data.
func rsRemainder(data, div []byte) []byte {
	res := make([]byte, len(div))
	for _, b := range data {
		f := b ^ res[0]
		copy(res, res[1:])
		res[len(res)-1] = 0
		for i := range res {
			res[i] ^= gfMul(div[i], f)
		}
	}
	return res
}

type qr struct {
	size     int
	ver      int
	mod, fun [][]bool // modules and function-pattern flags, [row][col]
}

func newQR(ver int) *qr {
	q := &qr{size: 17 + 4*ver, ver: ver}
	q.mod, q.fun = make([][]bool, q.size), make([][]bool, q.size)
	for i := range q.mod {
		q.mod[i], q.fun[i] = make([]bool, q.size), make([]bool, q.size)
	}
	return q
}

// set marks a function module at column x, row y.
func (q *qr) set(x, y int, dark bool) {
	q.mod[y][x], q.fun[y][x] = dark, true
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func (q *qr) drawFunctionPatterns() {
	for i := range q.size { // timing patterns
		q.set(6, i, i%2 == 0)
		q.set(i, 6, i%2 == 0)
	}
	for _, c := range [][2]int{{3, 3}, {q.size - 4, 3}, {3, q.size - 4}} { // finders with separators
		for dy := -4; dy <= 4; dy++ {
			for dx := -4; dx <= 4; dx++ {
				x, y := c[0]+dx, c[1]+dy
				if x >= 0 && x < q.size && y >= 0 && y < q.size {
					d := max(absInt(dx), absInt(dy))
					q.set(x, y, d != 2 && d != 4)
				}
			}
		}
	}
	if q.ver >= 2 { // one alignment pattern, the others overlap the finders
		c := q.size - 7
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				q.set(c+dx, c+dy, max(absInt(dx), absInt(dy)) != 1)
			}
		}
	}
	q.drawFormatBits(0) // reserves the format areas
}

// drawFormatBits writes the format information for level L and mask.
func (q *qr) drawFormatBits(mask int) {
	data := 1<<3 | mask // level L is 01
	rem := data
	for range 10 {
		rem = rem<<1 ^ (rem>>9)*0x537
	}
	bits := (data<<10 | rem) ^ 0x5412
	bit := func(i int) bool { return bits>>i&1 == 1 }
	for i := range 6 {
		q.set(8, i, bit(i))
	}
	q.set(8, 7, bit(6))
	q.set(8, 8, bit(7))
	q.set(7, 8, bit(8))
	for i := 9; i < 15; i++ {
		q.set(14-i, 8, bit(i))
	}
	for i := range 8 {
		q.set(q.size-1-i, 8, bit(i))
	}
	for i := 8; i < 15; i++ {
		q.set(8, q.size-15+i, bit(i))
	}
	q.set(8, q.size-8, true) // the dark module
}

// drawCodewords places the codewords in the zigzag order.
func (q *qr) drawCodewords(data []byte) {
	i := 0
	for right := q.size - 1; right >= 1; right -= 2 {
		if right == 6 {
			right = 5
		}
		for vert := range q.size {
			for j := range 2 {
				x := right - j
				y := vert
				if (right+1)&2 == 0 {
					y = q.size - 1 - vert
				}
				if !q.fun[y][x] && i < len(data)*8 {
					q.mod[y][x] = data[i>>3]>>(7-i&7)&1 == 1
					i++
				}
			}
		}
	}
}

// applyMask0 inverts the data modules where (row+column) is even.
func (q *qr) applyMask0() {
	for y := range q.size {
		for x := range q.size {
			if !q.fun[y][x] && (x+y)%2 == 0 {
				q.mod[y][x] = !q.mod[y][x]
			}
		}
	}
}
