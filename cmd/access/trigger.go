package main

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/access-dev/access/internal/simulator"
	"github.com/itchyny/gojq"
)

// triggerIO is how `access fake trigger`: it reaches the fake as every
// command reaches a console (--url and --token-file, the environment, or
// the login profile, with its pin or --cacert), and writes its answers
// through --jq and -o.
func (a *app) triggerIO() simulator.TriggerIO {
	return simulator.TriggerIO{Getenv: a.getenv, Connect: a.controlClient, Print: a.printControlAnswer}
}

// controlClient makes the client of the control API of the fake that
// this run's console is. A bad --jq is refused first: an act is sent
// only when its answer can be written.
func (a *app) controlClient() (*simulator.ControlClient, error) {
	if a.jq != "" {
		q, err := gojq.Parse(a.jq)
		if err == nil {
			_, err = gojq.Compile(q)
		}
		if err != nil {
			return nil, usageErrorf("--jq: %v", err)
		}
	}
	if a.fake {
		return nil, usageErrorf("--fake's embedded console has no control API: start access fake and point ACCESS_URL at it (access fake --print-env)")
	}
	if a.urlFlag == "" && a.getenv("ACCESS_URL") == "" && a.profile == "" && a.getenv("ACCESS_PROFILE") == "" {
		cfg, _, err := a.loadConfig()
		if err != nil {
			return nil, err
		}
		if cfg.Current == "" {
			return nil, usageErrorf("no fake to trigger: set ACCESS_URL and ACCESS_TOKEN (access fake --print-env prints them), give --url, or run access login")
		}
	}
	c, err := a.resolveConnection()
	if err != nil {
		return nil, err
	}
	return simulator.ControlTarget{URL: c.URL, Token: c.Token(), Fingerprint: c.Fingerprint, CAPEM: c.CACert, Insecure: c.Insecure}.Client()
}

// printControlAnswer writes an answer of the control API: indented JSON
// (a scenario's acts a line each), or, with --jq or -o, as every
// command's output is written.
func (a *app) printControlAnswer(w io.Writer, answer json.RawMessage, line bool) error {
	if a.jq == "" && a.output == "" {
		var b bytes.Buffer
		if line || json.Indent(&b, answer, "", "  ") != nil {
			b.Reset()
			b.Write(answer)
		}
		b.WriteByte('\n')
		_, err := w.Write(b.Bytes())
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(answer))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	format := a.format()
	if line && format == "json" {
		format = "jsonl"
	}
	return a.emitTo(w, format, v, nil)
}
