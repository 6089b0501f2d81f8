package access_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeGoBlocksCompile type-checks every ```go block of README.md
// against the real packages, so that no snippet drifts from the API.
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
// Blocks are found by their opening line, exactly "```go"; other fences
// (sh, text, none) are not Go and are skipped. The packages are checked from
// source (go/importer "source"), so nothing is written to the module.
func TestReadmeGoBlocksCompile(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	blocks := readmeGoBlocks(raw)
	require.NotEmpty(t, blocks, "README.md has Go blocks")

	fset := token.NewFileSet()
	files := make([]*ast.File, len(blocks))
	failed := make([]error, len(blocks))
	var paths []string
	for i, b := range blocks {
		src, err := snippetSource(b)
		if err == nil {
			files[i], err = parser.ParseFile(fset, "README.md", src, parser.SkipObjectResolution)
		}
		if err != nil {
			failed[i] = err
			continue
		}
		for _, spec := range files[i].Imports {
			if p := strings.Trim(spec.Path.Value, `"`); !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	imp := snippetImporter(t, fset, paths)
	for i, b := range blocks {
		t.Run(fmt.Sprintf("line_%d", b.line), func(t *testing.T) {
			require.NoError(t, failed[i], "the README.md block at line %d", b.line)
			f := files[i]
			var errs []string
			conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
			_, _ = conf.Check("snippet", fset, []*ast.File{f}, nil)
			assert.Empty(t, errs, "the README.md block at line %d does not compile", b.line)
		})
	}
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
}

type readmeBlock struct {
	line int // of the opening fence
	code string
}

// readmeGoBlocks returns the ```go blocks of a Markdown document.
func readmeGoBlocks(md []byte) []readmeBlock {
	var out []readmeBlock
	var cur *readmeBlock
	var body strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &readmeBlock{line: n}
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
// //line directive makes positions in errors README.md lines.
func snippetSource(blk readmeBlock) (string, error) {
	code := blk.code
	lineDirective := fmt.Sprintf("//line README.md:%d\n", blk.line+1)
	if f, err := parser.ParseFile(token.NewFileSet(), "", code, parser.PackageClauseOnly); err == nil && f.Name != nil {
		return lineDirective + code, nil
	}
	body := "package snippet\n\nfunc _() error {\n" + lineDirective + code + "\treturn nil\n}\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", body, 0)
	if err != nil {
		return "", fmt.Errorf("neither a file nor a function body: %w", err)
	}
	pkgs, free := freeNames(f)
	var params []string
	for _, name := range free {
		typ, ok := snippetFreeNames[name]
		if !ok {
			return "", fmt.Errorf("uses %q without declaring it: declare it in the block or add it to snippetFreeNames in readme_test.go", name)
		}
		params = append(params, name+" "+typ)
	}
	for _, typ := range params {
		for p := range snippetPackages {
			if strings.Contains(typ, p+".") && !slices.Contains(pkgs, p) {
				pkgs = append(pkgs, p)
			}
		}
	}
	sort.Strings(pkgs)
	var b strings.Builder
	b.WriteString("package snippet\n\nimport (\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\t%s %q\n", p, snippetPackages[p])
	}
	fmt.Fprintf(&b, ")\n\nfunc _(%s) error {\n%s%s\treturn nil\n}\n", strings.Join(params, ", "), lineDirective, code)
	return b.String(), nil
}

// freeNames returns the known package names and the other names that a
// parsed file uses without declaring them (builtins excluded), each once,
// sorted. It relies on the parser's object resolution, which leaves the
// names it cannot resolve in the file's Unresolved list.
func freeNames(f *ast.File) (pkgs, free []string) {
	for _, id := range f.Unresolved {
		name := id.Name
		switch {
		case types.Universe.Lookup(name) != nil:
		case snippetPackages[name] != "":
			if !slices.Contains(pkgs, name) {
				pkgs = append(pkgs, name)
			}
		default:
			if !slices.Contains(free, name) {
				free = append(free, name)
			}
		}
	}
	sort.Strings(pkgs)
	sort.Strings(free)
	return pkgs, free
}

func TestSnippetSourceMakesFreeNamesParameters(t *testing.T) {
	code := "user, _, err := client.Users.Get(ctx, userID, &access.UserGetOptions{Expand: nil})\n" +
		"if err != nil {\n\treturn fmt.Errorf(\"get: %w\", err)\n}\n_ = user\n"
	src, err := snippetSource(readmeBlock{line: 10, code: code})
	require.NoError(t, err)
	assert.Contains(t, src, "func _(client *access.Client, ctx context.Context, userID string) error {\n//line README.md:11\n")
	assert.Contains(t, src, "\taccess \"github.com/access-dev/access\"\n\tcontext \"context\"\n\tfmt \"fmt\"\n")
	assert.NotContains(t, src, "Expand ", "a composite literal's key is not a free name")

	file := "package x\n\nfunc F() {}\n"
	src, err = snippetSource(readmeBlock{line: 3, code: file})
	require.NoError(t, err)
	assert.Equal(t, "//line README.md:4\n"+file, src, "a block with a package clause is a file")

	_, err = snippetSource(readmeBlock{line: 1, code: "fmt.Println(mystery)\n"})
	assert.ErrorContains(t, err, `uses "mystery" without declaring it`)
}
