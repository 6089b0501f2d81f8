package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Output in the order of JSON: YAML and the KEY: VALUE table of one record
// show members in the order the JSON output has them (the SDK's field
// order), not sorted.

// YAMLNode converts v, through its JSON form, to a YAML node that keeps
// the order of every object's members.
func YAMLNode(v any) (*yaml.Node, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return yamlValue(d)
}

func yamlValue(d *json.Decoder) (*yaml.Node, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				val, err := yamlValue(d)
				if err != nil {
					return nil, err
				}
				key := &yaml.Node{}
				if err := key.Encode(k.(string)); err != nil {
					return nil, err
				}
				n.Content = append(n.Content, key, val)
			}
			_, err := d.Token() // }
			return n, err
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for d.More() {
				val, err := yamlValue(d)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, val)
			}
			_, err := d.Token() // ]
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		// Encoded as a Go string is: quoted where YAML would read another
		// type ("y", "1.5", "null"), a block for several lines.
		n := &yaml.Node{}
		return n, n.Encode(t)
	case json.Number:
		tag := "!!int"
		if _, err := t.Int64(); err != nil {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// JSONOrder returns the member names of v's JSON form, when it is an
// object, in their order.
func JSONOrder(v any) []string {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil && err != io.EOF {
			return nil
		}
	}
	return keys
}
