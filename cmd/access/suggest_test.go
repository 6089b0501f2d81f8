package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSuggestNames(t *testing.T) {
	names := eachName([]string{"Office 1", "Office 2", "Office floors", "Main entrance", "Garage", "Server room"})
	// Shared words first (two shared beat one), then the edit distance.
	assert.Equal(t, []string{"Office 1", "Office 2", "Office floors"}, suggestNames("office", names))
	assert.Equal(t, []string{"Office floors", "Office 1", "Office 2"}, suggestNames("office floor", names))
	assert.Equal(t, []string{"Office 1", "Office 2", "Office floors"}, suggestNames("Office 3", names))
	assert.Equal(t, []string{"Garage"}, suggestNames("garag", names))
	assert.Empty(t, suggestNames("zzzz", names))
	// A record is suggested once, by the name that scored best.
	recs := [][]string{{"Main entrance", "HQ - Ground floor - Main entrance"}, {"Loading dock", "HQ - Ground floor - Loading dock"}}
	assert.Equal(t, []string{"HQ - Ground floor - Loading dock", "HQ - Ground floor - Main entrance"}, suggestNames("ground floor", recs))
	assert.Equal(t, []string{"Main entrance"}, suggestNames("main entrnce", recs))
	assert.Equal(t, `: did you mean "Garage"?`, didYouMean("Garrage", names))
	assert.Equal(t, "", didYouMean("zzzz", names))
	assert.Equal(t, 3, editDistance("kitten", "sitting"))
}
