package accesstest

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// qrRead decodes a matrix made by qrMatrix: it checks the format
// information (level L, mask 0), unmasks, reads the codewords back in the
// standard order, checks the Reed-Solomon syndromes and returns the
// byte-mode text. (The same images were also read by zbarimg when the
// encoder was written.)
func qrRead(t *testing.T, m [][]bool) string {
	t.Helper()
	size := len(m)
	ver := (size - 17) / 4
	require.Equal(t, 17+4*ver, size)
	bit := make([]int, 15) // the first copy, where drawFormatBits puts it
	for i := range 6 {
		bit[i] = b2i(m[i][8])
	}
	bit[6], bit[7], bit[8] = b2i(m[7][8]), b2i(m[8][8]), b2i(m[8][7])
	for i := 9; i < 15; i++ {
		bit[i] = b2i(m[8][14-i])
	}
	format := 0
	for i := 14; i >= 0; i-- {
		format = format<<1 | bit[i]
	}
	format ^= 0x5412
	require.Equal(t, 0b01_000, format>>10, "level L, mask 0")
	q := newQR(ver)
	q.drawFunctionPatterns() // which modules are data
	v := qrVersions[ver-1]
	var bits []bool
	for right := size - 1; right >= 1; right -= 2 {
		if right == 6 {
			right = 5
		}
		for vert := range size {
			for j := range 2 {
				x, y := right-j, vert
				if (right+1)&2 == 0 {
					y = size - 1 - vert
				}
				if !q.fun[y][x] {
					bits = append(bits, m[y][x] != ((x+y)%2 == 0))
				}
			}
		}
	}
	cw := make([]byte, v.total)
	for i := range cw {
		for j := range 8 {
			if bits[i*8+j] {
				cw[i] |= 1 << (7 - j)
			}
		}
	}
	// Syndromes: the codeword polynomial evaluated at 2^0..2^(ec-1) is 0.
	alpha := byte(1)
	for range v.ec {
		var s byte
		for _, c := range cw {
			s = gfMul(s, alpha) ^ c
		}
		assert.Zero(t, s, "Reed-Solomon syndrome")
		alpha = gfMul(alpha, 2)
	}
	var r bitReader
	r.b = cw
	require.Equal(t, 0b0100, r.read(4), "byte mode")
	n := r.read(8)
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(r.read(8))
	}
	return string(out)
}

type bitReader struct {
	b   []byte
	pos int
}

func (r *bitReader) read(n int) int {
	v := 0
	for range n {
		v = v<<1 | int(r.b[r.pos/8]>>(7-r.pos%8)&1)
		r.pos++
	}
	return v
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestQRCodeEncodesTheText(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"15a90692-6f3b-4e1c-9886-bcd15e9c3f2d", "x", "", strings.Repeat("v", 106)} {
		m := qrMatrix(s)
		assert.Equal(t, s, qrRead(t, m), "%q", s)
	}
	// Too long for version 5: the SHA-256 in hex is encoded instead.
	long := strings.Repeat("v", 107)
	assert.Len(t, qrRead(t, qrMatrix(long)), 64)
	assert.Len(t, qrMatrix("15a90692-6f3b-4e1c-9886-bcd15e9c3f2d"), 29, "version 3")
}

func TestQRPNGDecodes(t *testing.T) {
	t.Parallel()
	img, err := png.Decode(bytes.NewReader(qrPNG("15a90692-6f3b-4e1c-9886-bcd15e9c3f2d", 4)))
	require.NoError(t, err)
	assert.Equal(t, (29+8)*4, img.Bounds().Dx())
	// The top-left module of the finder pattern is dark, the quiet zone light.
	r, _, _, _ := img.At(4*4, 4*4).RGBA()
	assert.Zero(t, r)
	r, _, _, _ = img.At(1, 1).RGBA()
	assert.NotZero(t, r)
}
