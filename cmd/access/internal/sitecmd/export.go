package sitecmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/site"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

func exportCommand(f *cmdutil.Factory) *cobra.Command {
	var out string
	var kinds []string
	c := &cobra.Command{
		Use:   "export",
		Short: "Write the console's people, groups, policies, schedules and holidays as a site document",
		Long: `Export writes what the console holds as a site document (YAML; -o json for JSON): names,
not ids, in a stable order. Secrets, webhook header values, PIN codes and cards are never written.
What cannot be managed (a user with neither employee number nor email, two objects of one kind
with one name) is left out with a warning on stderr.

"access plan -f" of the output reports no change.`,
		Example: `  access --fake export -O site.yaml
  access --fake export --kinds users,user-groups -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ks, err := parseKinds(kinds)
			if err != nil {
				return err
			}
			format, _ := f.Output()
			if format != "" && format != "yaml" && format != "json" {
				return cmdutil.UsageErrorf("export writes yaml (the default) or -o json, not -o %s", format)
			}
			cl, err := f.Client()
			if err != nil {
				return err
			}
			doc, warnings, err := site.Export(c.Context(), cl, ks)
			if err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintln(f.ErrOut, "warning: "+w)
			}
			var b []byte
			if format == "json" {
				if b, err = json.MarshalIndent(doc, "", "  "); err == nil {
					b = append(b, '\n')
				}
			} else {
				b, err = marshalDocumentYAML(doc)
			}
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = f.Out.Write(b)
				return err
			}
			return cmdutil.WriteFileAtomic(c.Context(), out, func(w io.Writer) error { _, err := w.Write(b); return err })
		},
	}
	c.Flags().StringVarP(&out, "output-file", "O", "", "write the document to `FILE` instead of stdout")
	c.Flags().StringSliceVar(&kinds, "kinds", nil, "export only these `KINDS` (holiday-groups, schedules, door-groups, access-policies, user-groups, users, webhooks)")
	return c
}

func parseKinds(names []string) ([]site.Kind, error) {
	var out []site.Kind
	for _, n := range names {
		k, err := site.ParseKind(n)
		if err != nil {
			return nil, cmdutil.UsageErrorf("--kinds: %v", err)
		}
		out = append(out, k)
	}
	return out, nil
}

// marshalDocumentYAML writes the kinds the document lists in dependency
// order, an empty listed kind as [].
func marshalDocumentYAML(d *site.Document) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("# yaml-language-server: $schema=" + site.SchemaID + "\n")
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	// The kinds in JSON's order (MarshalJSON keeps dependency order),
	// then the typed lists re-encoded for YAML's own forms (times, block
	// style).
	keys, err := topKeys(b)
	if err != nil {
		return nil, err
	}
	v := reflect.ValueOf(d).Elem()
	for _, key := range keys {
		field := fieldByTag(v.Type(), key)
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(map[string]any{key: v.FieldByIndex(field.Index).Interface()}); err != nil {
			return nil, err
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// topKeys returns the members of the JSON object b in their order (a
// scan of the JSON: decoding the whole document into a YAML node to learn
// them took 17 % of an export of 10,000 users).
func topKeys(b []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

func fieldByTag(t reflect.Type, name string) reflect.StructField {
	for i := range t.NumField() {
		f := t.Field(i)
		if n, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); n == name {
			return f
		}
	}
	return reflect.StructField{}
}
