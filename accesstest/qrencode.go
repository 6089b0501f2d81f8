package accesstest

import "crypto/sha256"

// qrMatrix returns the dark modules of the code for text. For now it is a
// deterministic pattern with the three finder marks; see qrPNG.
func qrMatrix(text string) [][]bool {
	const n = 29
	m := make([][]bool, n)
	for i := range m {
		m[i] = make([]bool, n)
	}
	sum := sha256.Sum256([]byte(text))
	for y := range n {
		for x := range n {
			bit := (y*n + x) % 256
			m[y][x] = sum[bit/8]>>(bit%8)&1 == 1
		}
	}
	finder := func(x0, y0 int) {
		for y := -1; y <= 7; y++ {
			for x := -1; x <= 7; x++ {
				if x0+x < 0 || y0+y < 0 || x0+x >= n || y0+y >= n {
					continue
				}
				in := x >= 0 && x <= 6 && y >= 0 && y <= 6
				ring := x == 0 || x == 6 || y == 0 || y == 6
				core := x >= 2 && x <= 4 && y >= 2 && y <= 4
				m[y0+y][x0+x] = in && (ring || core)
			}
		}
	}
	finder(0, 0)
	finder(n-7, 0)
	finder(0, n-7)
	return m
}
