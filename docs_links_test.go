package access_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocLinksResolve: every relative link of README.md and of the pages of
// docs/ names a file or directory that exists, and a link with a #fragment
// to a Markdown page names one of that page's headings (as GitHub makes
// anchors of them); every page of docs/ is linked from the README's table
// of contents.
func TestDocLinksResolve(t *testing.T) {
	t.Parallel()
	pages := docPages(t)
	assert.Empty(t, checkDocLinks(".", pages))

	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	linked := map[string]bool{}
	for _, l := range markdownLinks(string(readme)) {
		linked[strings.SplitN(l, "#", 2)[0]] = true
	}
	for _, p := range pages[1:] {
		assert.True(t, linked[filepath.ToSlash(p)], "README.md does not link %s", p)
	}
}

// TestCheckDocLinksFindsBrokenOnes: the check reports a page that does not
// exist, an anchor no heading makes, and nothing for good links.
func TestCheckDocLinksFindsBrokenOnes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("README.md", "# Top\n\n| [Guide](docs/guide.md) | [Gone](docs/gone.md) |\n"+
		"[anchor](docs/guide.md#errors-and-retries) [bad anchor](docs/guide.md#nothing-here) [web](https://example.com/x.md)\n"+
		"```sh\necho [not](a-link.md)\n```\n`[code](nor-this.md)` [self](#top)\n")
	write("docs/guide.md", "# Guide\n\n## Errors and retries\n\n[back](../README.md#top) [up](../README.md#gone)\n")
	got := checkDocLinks(dir, []string{"README.md", "docs/guide.md"})
	assert.Equal(t, []string{
		"README.md: docs/gone.md: no such file",
		"README.md: docs/guide.md#nothing-here: no heading makes that anchor",
		"docs/guide.md: ../README.md#gone: no heading makes that anchor",
	}, got)
}

var (
	mdFence = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```[ \t]*$")
	mdCode  = regexp.MustCompile("`[^`\n]*`")
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// markdownLinks returns the targets of a document's links and images,
// outside code blocks and code spans.
func markdownLinks(md string) []string {
	md = mdFence.ReplaceAllString(md, "")
	md = mdCode.ReplaceAllString(md, "``")
	var out []string
	for _, m := range mdLink.FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

// headingAnchors returns the anchors GitHub makes of a document's headings:
// lower case, spaces to hyphens, punctuation dropped, "-1", "-2" for
// repeats.
func headingAnchors(md string) []string {
	md = mdFence.ReplaceAllString(md, "")
	var out []string
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		for n, base := 1, a; slices.Contains(out, a); n++ {
			a = fmt.Sprintf("%s-%d", base, n)
		}
		out = append(out, a)
	}
	return out
}

// checkDocLinks checks the relative links of pages (paths relative to
// root) and returns a line per broken one.
func checkDocLinks(root string, pages []string) []string {
	var problems []string
	for _, page := range pages {
		raw, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, link := range markdownLinks(string(raw)) {
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			target, anchor, _ := strings.Cut(link, "#")
			file := filepath.ToSlash(page)
			if target != "" {
				file = path.Join(path.Dir(filepath.ToSlash(page)), target)
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(file))); err != nil {
					problems = append(problems, fmt.Sprintf("%s: %s: no such file", page, link))
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			md, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			if !slices.Contains(headingAnchors(string(md)), anchor) {
				problems = append(problems, fmt.Sprintf("%s: %s: no heading makes that anchor", page, link))
			}
		}
	}
	return problems
}
