package accesstest

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readSymbol decodes a symbol made by qrMatrix without trusting its
// drawing code: it finds the data modules from a fresh set of function
// patterns, reads the zigzag back, removes mask 0, checks every block's
// Reed-Solomon codewords and the format information, and returns the
// byte-mode payload.
func readSymbol(t *testing.T, m [][]bool) []byte {
	t.Helper()
	size := len(m)
	v := (size - 17) / 4
	require.Equal(t, 17+4*v, size)
	vi := qrVersions[v]
	ref := &qrSymbol{size: size, dark: make([][]bool, size), fn: make([][]bool, size)}
	for i := range ref.dark {
		ref.dark[i], ref.fn[i] = make([]bool, size), make([]bool, size)
	}
	ref.functionPatterns(vi.align)
	for r := range size { // function modules, format included, as drawn
		for c := range size {
			if ref.fn[r][c] {
				require.Equal(t, ref.dark[r][c], m[r][c], "function module (%d,%d)", r, c)
			}
		}
	}
	var bits []bool
	for right := size - 1; right >= 1; right -= 2 {
		if right == 6 {
			right = 5
		}
		for vert := range size {
			for j := range 2 {
				col, row := right-j, vert
				if (right+1)&2 == 0 {
					row = size - 1 - vert
				}
				if !ref.fn[row][col] {
					bits = append(bits, m[row][col] != ((row+col)%2 == 0))
				}
			}
		}
	}
	var cw []byte
	for i := 0; i+8 <= len(bits); i += 8 {
		var b byte
		for _, bit := range bits[i : i+8] {
			b <<= 1
			if bit {
				b |= 1
			}
		}
		cw = append(cw, b)
	}
	// De-interleave and check each block.
	n := len(vi.blocks)
	data := make([][]byte, n)
	k := 0
	for i := 0; i < vi.blocks[n-1]; i++ {
		for b := range n {
			if i < vi.blocks[b] {
				data[b] = append(data[b], cw[k])
				k++
			}
		}
	}
	ecs := make([][]byte, n)
	for range vi.ecPerBlock {
		for b := range n {
			ecs[b] = append(ecs[b], cw[k])
			k++
		}
	}
	var payload []byte
	for b := range n {
		assert.Equal(t, ecs[b], rsRemainder(data[b], rsDivisor(vi.ecPerBlock)), "block %d error correction", b)
		payload = append(payload, data[b]...)
	}
	require.Equal(t, byte(0b0100), payload[0]>>4, "byte mode")
	count := int(payload[0]&0x0F)<<4 | int(payload[1]>>4)
	out := make([]byte, count)
	for i := range out {
		out[i] = payload[1+i]<<4 | payload[2+i]>>4
	}
	return out
}

func TestQRSymbolsDecode(t *testing.T) {
	t.Parallel()
	texts := []string{"", "A", "15a90692-6f3b-4e1c-9886-bcd15e9c3f2d", strings.Repeat("x", 60), strings.Repeat("é", 53)}
	for _, text := range texts {
		m, err := qrMatrix([]byte(text))
		require.NoError(t, err)
		assert.Equal(t, text, string(readSymbol(t, m)))
	}
	// Every version, at its capacity.
	for v := 1; v < len(qrVersions); v++ {
		capacity := 0
		for _, n := range qrVersions[v].blocks {
			capacity += n
		}
		text := strings.Repeat("Q", capacity-2) // 12 header bits and the 4-bit terminator fit in 2 bytes
		m, err := qrMatrix([]byte(text))
		require.NoError(t, err)
		assert.Len(t, m, 17+4*v, "version %d", v)
		assert.Equal(t, text, string(readSymbol(t, m)))
	}
	_, err := qrMatrix(bytes.Repeat([]byte("x"), 107))
	assert.ErrorIs(t, err, errQRTooLong)
}

func TestQRPNG(t *testing.T) {
	t.Parallel()
	const id = "15a90692-6f3b-4e1c-9886-bcd15e9c3f2d"
	b, err := qrPNG(id, 4)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	side := (17 + 4*3 + 8) * 4 // version 3 and the quiet zone
	assert.Equal(t, side, img.Bounds().Dx())
	assert.Equal(t, side, img.Bounds().Dy())
	dark := func(x, y int) bool { r, _, _, _ := img.At(x, y).RGBA(); return r < 0x8000 }
	assert.False(t, dark(0, 0), "quiet zone")
	assert.True(t, dark(16, 16), "finder corner")
	assert.True(t, dark(side-17, 16), "finder corner")
	assert.True(t, dark(16, side-17), "finder corner")

	// Where a real decoder is installed (zbar-tools), it must agree.
	zbar, err := exec.LookPath("zbarimg")
	if err != nil {
		t.Log("zbarimg not installed: the external decoding check is skipped")
		return
	}
	path := filepath.Join(t.TempDir(), "qr.png")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	out, err := exec.Command(zbar, "--quiet", "--raw", path).Output()
	require.NoError(t, err)
	assert.Equal(t, id, strings.TrimSpace(string(out)))
}
