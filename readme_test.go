package access_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docPages returns README.md and the Markdown pages of docs/ (not the
// generated command reference under docs/cli/): the documents whose Go
// blocks must compile and whose relative links must resolve.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, pages, "docs/ has Markdown pages")
	return append([]string{"README.md"}, pages...)
}

// TestReadmeGoBlocksCompile type-checks every ```go block of README.md and
// of the pages of docs/ against the real packages, so that no snippet
// drifts from the API.
//
// The scheme, for whoever adds a block:
//
//   - A block that has a package clause is checked as a Go file of its own
//     (its imports as written).
//   - Any other block is the body of a function returning error
//     (func(<free names>) error { <block>; return nil }): "return err"
//     works, and every variable it declares must be used, as in real code.
//     Its imports are added for the package names it uses (see
//     snippetPackages), and its free names, the ones it uses without
//     declaring them (ctx, client, userID, …), become the function's
//     parameters with the types in snippetFreeNames. A block that uses a
//     name found in neither table fails: declare the name in the block or
//     add it to the table.
//
// The free names are what go/types reports as undefined when the block is
// checked as a function body with no imports and no parameters. Blocks are
// found by their opening line, exactly "```go"; other fences (sh, text,
// none) are not Go and are skipped. Nothing is written to the module.
func TestReadmeGoBlocksCompile(t *testing.T) {
	t.Parallel() // mostly waits for go list
	var blocks []readmeBlock
	perPage := map[string]int{}
	for _, page := range docPages(t) {
		b, err := goBlocks(page)
		require.NoError(t, err)
		blocks = append(blocks, b...)
		perPage[page] = len(b)
	}
	// The pages the library's snippets moved to keep them.
	for _, page := range []string{"docs/library.md", "docs/connecting.md", "docs/events.md", "docs/testing.md", "docs/site.md"} {
		assert.NotZero(t, perPage[page], "%s has Go blocks", page)
	}

	fset := token.NewFileSet()
	imp := snippetImporter(t, fset, blockImports(blocks))
	for _, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			src, err := snippetSource(b, imp)
			require.NoError(t, err, "the %s block at line %d", b.file, b.line)
			errs := typeCheck(fset, imp, src)
			assert.Empty(t, errs, "the %s block at line %d does not compile", b.file, b.line)
		})
	}
}

// blockImports returns the import paths the blocks may need: those of
// snippetPackages and those the file blocks import.
func blockImports(blocks []readmeBlock) []string {
	var paths []string
	for _, p := range snippetPackages {
		paths = append(paths, p)
	}
	for _, b := range blocks {
		f, err := parser.ParseFile(token.NewFileSet(), "", b.code, parser.ImportsOnly)
		if err != nil {
			continue // not a file
		}
		for _, spec := range f.Imports {
			if p := strings.Trim(spec.Path.Value, `"`); !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	sort.Strings(paths)
	return paths
}

// typeCheck parses and type-checks one file and returns its errors, or
// the parse error.
func typeCheck(fset *token.FileSet, imp types.Importer, src string) []string {
	f, err := parser.ParseFile(fset, "snippet.go", src, parser.SkipObjectResolution)
	if err != nil {
		return []string{err.Error()}
	}
	var errs []string
	conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
	_, _ = conf.Check("snippet", fset, []*ast.File{f}, nil)
	return errs
}

// snippetPackages are the package names a function-body block may use
// without importing them.
var snippetPackages = map[string]string{
	"access":     "github.com/access-dev/access",
	"accesstest": "github.com/access-dev/access/accesstest",
	"context":    "context",
	"errors":     "errors",
	"fmt":        "fmt",
	"http":       "net/http",
	"io":         "io",
	"json":       "encoding/json",
	"log":        "log",
	"os":         "os",
	"slog":       "log/slog",
	"strings":    "strings",
	"testing":    "testing",
	"time":       "time",
}

// snippetFreeNames are the names a function-body block may use without
// declaring them, with their types.
var snippetFreeNames = map[string]string{
	"ctx":          "context.Context",
	"client":       "*access.Client",
	"srv":          "*accesstest.Server",
	"t":            "*testing.T",
	"userID":       "string",
	"readerID":     "string",
	"deviceID":     "string",
	"doorID":       "string",
	"visitorID":    "string",
	"policyID":     "string",
	"hookToken":    "string",
	"refreshDoors": "func(context.Context)",
	"alert":        "func(error)",
}

type readmeBlock struct {
	file string // the Markdown page
	line int    // of the opening fence
	code string
}

// goBlocks returns the ```go blocks of the Markdown page at path.
func goBlocks(path string) ([]readmeBlock, error) {
	md, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readmeGoBlocks(path, md), nil
}

// readmeGoBlocks returns the ```go blocks of a Markdown document, named
// file in the blocks.
func readmeGoBlocks(file string, md []byte) []readmeBlock {
	var out []readmeBlock
	var cur *readmeBlock
	var body strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &readmeBlock{file: file, line: n}
			body.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.code = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	return out
}

// snippetImporter imports packages from the export data the go command
// builds (and caches) for them, which is much faster than type-checking
// net/http and the rest from source; without a go command it falls back to
// the source importer.
func snippetImporter(t *testing.T, fset *token.FileSet, paths []string) types.Importer {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Logf("no go command (%v): checking from source", err)
		return importer.ForCompiler(fset, "source", nil)
	}
	args := append([]string{"list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}={{.Export}}{{end}}"}, paths...)
	out, err := exec.Command(gobin, args...).Output()
	require.NoError(t, err, "go list -export")
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok {
			exports[path] = file
		}
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(file)
	})
}

// snippetSource returns a block as a Go file: itself when it has a package
// clause, else a function around it (see TestReadmeGoBlocksCompile). A
// //line directive makes positions in errors lines of the page.
func snippetSource(blk readmeBlock, imp types.Importer) (string, error) {
	lineDirective := fmt.Sprintf("//line %s:%d\n", blk.file, blk.line+1)
	if f, err := parser.ParseFile(token.NewFileSet(), "", blk.code, parser.PackageClauseOnly); err == nil && f.Name != nil {
		return lineDirective + blk.code, nil
	}
	var pkgs, free []string
	// Each round declares the names the last one found undefined; a name
	// can hide others (the arguments of an undefined function), hence the
	// rounds.
	for range 5 {
		src := wrapSnippet(lineDirective+blk.code, pkgs, free)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
		if err != nil {
			return "", fmt.Errorf("neither a file nor a function body: %w", err)
		}
		var undefined []string
		conf := types.Config{Importer: imp, Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				if name, ok := strings.CutPrefix(te.Msg, "undefined: "); ok && !slices.Contains(undefined, name) {
					undefined = append(undefined, name)
				}
			}
		}}
		_, _ = conf.Check("snippet", fset, []*ast.File{f}, nil)
		if len(undefined) == 0 {
			return src, nil
		}
		for _, name := range undefined {
			switch {
			case snippetPackages[name] != "":
				if !slices.Contains(pkgs, name) {
					pkgs = append(pkgs, name)
				}
			case snippetFreeNames[name] != "":
				free = append(free, name)
				for p := range snippetPackages {
					if strings.Contains(snippetFreeNames[name], p+".") && !slices.Contains(pkgs, p) {
						pkgs = append(pkgs, p)
					}
				}
			default:
				return "", fmt.Errorf("uses %q without declaring it: declare it in the block or add it to snippetFreeNames in readme_test.go", name)
			}
		}
	}
	return "", errors.New("free names still undefined after 5 rounds")
}

// wrapSnippet puts code into func _(<free names>) error in a file that
// imports pkgs.
func wrapSnippet(code string, pkgs, free []string) string {
	pkgs, free = slices.Sorted(slices.Values(pkgs)), slices.Sorted(slices.Values(free))
	var b strings.Builder
	b.WriteString("package snippet\n\n")
	if len(pkgs) > 0 {
		b.WriteString("import (\n")
		for _, p := range pkgs {
			fmt.Fprintf(&b, "\t%s %q\n", p, snippetPackages[p])
		}
		b.WriteString(")\n\n")
	}
	params := make([]string, len(free))
	for i, name := range free {
		params[i] = name + " " + snippetFreeNames[name]
	}
	fmt.Fprintf(&b, "func _(%s) error {\n%s\treturn nil\n}\n", strings.Join(params, ", "), code)
	return b.String()
}

func TestSnippetSourceMakesFreeNamesParameters(t *testing.T) {
	fset := token.NewFileSet()
	imp := snippetImporter(t, fset, blockImports(nil))
	code := "user, _, err := client.Users.Get(ctx, userID, &access.UserGetOptions{Expand: nil})\n" +
		"if err != nil {\n\treturn fmt.Errorf(\"get: %w\", err)\n}\n_ = user\n"
	src, err := snippetSource(readmeBlock{file: "README.md", line: 10, code: code}, imp)
	require.NoError(t, err)
	assert.Contains(t, src, "func _(client *access.Client, ctx context.Context, userID string) error {\n//line README.md:11\n")
	assert.Contains(t, src, "\taccess \"github.com/access-dev/access\"\n\tcontext \"context\"\n\tfmt \"fmt\"\n")
	assert.NotContains(t, src, "Expand ", "a composite literal's key is not a free name")
	assert.Empty(t, typeCheck(fset, imp, src))

	file := "package x\n\nfunc F() {}\n"
	src, err = snippetSource(readmeBlock{file: "docs/library.md", line: 3, code: file}, imp)
	require.NoError(t, err)
	assert.Equal(t, "//line docs/library.md:4\n"+file, src, "a block with a package clause is a file")

	_, err = snippetSource(readmeBlock{file: "README.md", line: 1, code: "fmt.Println(mystery)\n"}, imp)
	assert.ErrorContains(t, err, `uses "mystery" without declaring it`)
}
