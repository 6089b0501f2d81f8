package accesstest

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
)

// A small QR Code encoder (ISO/IEC 18004), enough for the fake's visitor
// QR codes: byte mode, error correction level M, versions 1 to 6 (up to
// 106 bytes), mask pattern 0. Any mask gives a valid symbol; a console
// would pick the one with the lowest penalty, which only affects how easy
// the symbol is to scan, not what it says.

// qrVersion is the block structure of one version at level M.
type qrVersion struct {
	ecPerBlock int
	blocks     []int // data codewords of each block
	align      []int // alignment pattern centres (rows and columns)
}

var qrVersions = [...]qrVersion{
	1: {10, []int{16}, nil},
	2: {16, []int{28}, []int{6, 18}},
	3: {26, []int{44}, []int{6, 22}},
	4: {18, []int{32, 32}, []int{6, 26}},
	5: {24, []int{43, 43}, []int{6, 30}},
	6: {16, []int{27, 27, 27, 27}, []int{6, 34}},
}

// errQRTooLong is returned for a text longer than version 6 holds.
var errQRTooLong = errors.New("accesstest: text too long for the fake's QR encoder")

// qrMatrix encodes text as a QR Code symbol; true is a dark module.
func qrMatrix(text []byte) ([][]bool, error) {
	v, vi := 0, qrVersion{}
	for i := 1; i < len(qrVersions); i++ {
		capacity := 0
		for _, n := range qrVersions[i].blocks {
			capacity += n
		}
		if 4+8+8*len(text) <= 8*capacity {
			v, vi = i, qrVersions[i]
			break
		}
	}
	if v == 0 {
		return nil, errQRTooLong
	}
	codewords := qrCodewords(text, vi)
	size := 17 + 4*v
	q := &qrSymbol{size: size, dark: make([][]bool, size), fn: make([][]bool, size)}
	for i := range q.dark {
		q.dark[i], q.fn[i] = make([]bool, size), make([]bool, size)
	}
	q.functionPatterns(vi.align)
	q.placeData(codewords)
	q.formatBits()
	return q.dark, nil
}

// qrCodewords builds the data codewords (mode, count, bytes, terminator,
// padding), adds the Reed-Solomon codewords of each block and interleaves
// them.
func qrCodewords(text []byte, vi qrVersion) []byte {
	capacity := 0
	for _, n := range vi.blocks {
		capacity += n
	}
	var bits []bool
	put := func(v, n int) {
		for i := n - 1; i >= 0; i-- {
			bits = append(bits, v>>i&1 == 1)
		}
	}
	put(0b0100, 4) // byte mode
	put(len(text), 8)
	for _, b := range text {
		put(int(b), 8)
	}
	put(0, min(4, 8*capacity-len(bits)))
	for len(bits)%8 != 0 {
		bits = append(bits, false)
	}
	data := make([]byte, 0, capacity)
	for i := 0; i < len(bits); i += 8 {
		var b byte
		for _, bit := range bits[i : i+8] {
			b <<= 1
			if bit {
				b |= 1
			}
		}
		data = append(data, b)
	}
	for pad := byte(0xEC); len(data) < capacity; pad ^= 0xEC ^ 0x11 {
		data = append(data, pad)
	}

	divisor := rsDivisor(vi.ecPerBlock)
	var blocks, ecs [][]byte
	for _, n := range vi.blocks {
		blocks = append(blocks, data[:n])
		ecs = append(ecs, rsRemainder(data[:n], divisor))
		data = data[n:]
	}
	var out []byte
	for i := 0; i < vi.blocks[len(vi.blocks)-1]; i++ {
		for _, b := range blocks {
			if i < len(b) {
				out = append(out, b[i])
			}
		}
	}
	for i := 0; i < vi.ecPerBlock; i++ {
		for _, ec := range ecs {
			out = append(out, ec[i])
		}
	}
	return out
}

// gfMul multiplies in GF(2^8) modulo x^8+x^4+x^3+x^2+1.
func gfMul(x, y byte) byte {
	var z byte
	for i := 7; i >= 0; i-- {
		z = z<<1 ^ (z>>7)*0x1D
		z ^= (y >> i & 1) * x
	}
	return z
}

// rsDivisor is the generator polynomial of degree n, highest term
// implied, coefficients from the highest power down.
func rsDivisor(n int) []byte {
	d := make([]byte, n)
	d[n-1] = 1
	root := byte(1)
	for range n {
		for j := range d {
			d[j] = gfMul(d[j], root)
			if j+1 < n {
				d[j] ^= d[j+1]
			}
		}
		root = gfMul(root, 2)
	}
	return d
}

func rsRemainder(data, divisor []byte) []byte {
	r := make([]byte, len(divisor))
	for _, b := range data {
		f := b ^ r[0]
		copy(r, r[1:])
		r[len(r)-1] = 0
		for i, c := range divisor {
			r[i] ^= gfMul(c, f)
		}
	}
	return r
}

// qrSymbol is the module grid being drawn; fn marks function modules,
// which data and the mask leave alone. Indexes are [row][column].
type qrSymbol struct {
	size     int
	dark, fn [][]bool
}

func (q *qrSymbol) set(row, col int, dark bool) {
	q.dark[row][col], q.fn[row][col] = dark, true
}

func (q *qrSymbol) functionPatterns(align []int) {
	for i := range q.size { // timing patterns
		q.set(6, i, i%2 == 0)
		q.set(i, 6, i%2 == 0)
	}
	for _, c := range [][2]int{{3, 3}, {3, q.size - 4}, {q.size - 4, 3}} { // finders and separators
		for dr := -4; dr <= 4; dr++ {
			for dc := -4; dc <= 4; dc++ {
				r, col := c[0]+dr, c[1]+dc
				if r >= 0 && r < q.size && col >= 0 && col < q.size {
					d := max(abs(dr), abs(dc))
					q.set(r, col, d != 2 && d != 4)
				}
			}
		}
	}
	for i, r := range align {
		for j, c := range align {
			last := len(align) - 1
			if i == 0 && j == 0 || i == 0 && j == last || i == last && j == 0 {
				continue // under a finder
			}
			for dr := -2; dr <= 2; dr++ {
				for dc := -2; dc <= 2; dc++ {
					q.set(r+dr, c+dc, max(abs(dr), abs(dc)) != 1)
				}
			}
		}
	}
	q.formatBits() // reserves the format areas; drawn again at the end
}

// placeData fills the data modules in the standard zigzag, two columns at
// a time from the bottom right, then applies mask 0 ((row+column) even).
func (q *qrSymbol) placeData(codewords []byte) {
	i := 0
	for right := q.size - 1; right >= 1; right -= 2 {
		if right == 6 {
			right = 5
		}
		for vert := range q.size {
			for j := range 2 {
				col := right - j
				row := vert
				if (right+1)&2 == 0 {
					row = q.size - 1 - vert
				}
				if q.fn[row][col] {
					continue
				}
				if i < 8*len(codewords) {
					q.dark[row][col] = codewords[i>>3]>>(7-i&7)&1 == 1
					i++
				}
				q.dark[row][col] = q.dark[row][col] != ((row+col)%2 == 0)
			}
		}
	}
}

// formatBits draws both copies of the format information: level M (00),
// mask 0, BCH(15,5) protected and masked with 0x5412, and the dark module.
func (q *qrSymbol) formatBits() {
	const data = 0 // level M (00), mask 0 (000)
	rem := data
	for range 10 {
		rem = rem<<1 ^ (rem>>9)*0x537
	}
	bits := (data<<10 | rem) ^ 0x5412
	bit := func(i int) bool { return bits>>i&1 == 1 }
	for i := 0; i <= 5; i++ {
		q.set(i, 8, bit(i))
	}
	q.set(7, 8, bit(6))
	q.set(8, 8, bit(7))
	q.set(8, 7, bit(8))
	for i := 9; i < 15; i++ {
		q.set(8, 14-i, bit(i))
	}
	for i := range 8 {
		q.set(8, q.size-1-i, bit(i))
	}
	for i := 8; i < 15; i++ {
		q.set(q.size-15+i, 8, bit(i))
	}
	q.set(q.size-8, 8, true)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// qrPNG renders text as a QR Code PNG with scale pixels a module and the
// standard 4-module quiet zone.
func qrPNG(text string, scale int) ([]byte, error) {
	m, err := qrMatrix([]byte(text))
	if err != nil {
		return nil, err
	}
	side := (len(m) + 8) * scale
	img := image.NewGray(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = 0xFF
	}
	for r, row := range m {
		for c, dark := range row {
			if !dark {
				continue
			}
			for y := (r + 4) * scale; y < (r+5)*scale; y++ {
				for x := (c + 4) * scale; x < (c+5)*scale; x++ {
					img.SetGray(x, y, color.Gray{})
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
