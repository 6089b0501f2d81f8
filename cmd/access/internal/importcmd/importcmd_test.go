package importcmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRowList(t *testing.T) {
	for want, rows := range map[string][]int{"row 4": {4}, "rows 5-9, 12": {5, 6, 7, 8, 9, 12}, "rows 2, 4": {2, 4}} {
		assert.Equal(t, want, rowList(rows))
	}
}
