package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/output"
)

var logTopics = []string{"all", "door_openings", "critical", "updates", "device_events", "admin_activity", "visitor"}

var logFlags = []flagSpec{
	{name: "topic", usage: "all, door_openings, critical, updates, device_events, admin_activity or visitor", def: "all", values: logTopics},
	{name: "since", usage: "from: a duration back (24h, 7d) or a date"},
	{name: "until", usage: "to: a duration back or a date (default now)"},
	{name: "actor", usage: "identity id of the actor (user, visitor or device)"},
}

// logWire is the wire form of the body of SystemLogs.List (the filter),
// which its --data takes: times in Unix seconds.
type logWire struct {
	Topic   access.SystemLogTopic `json:"topic"`
	Since   int64                 `json:"since,omitempty"`
	Until   int64                 `json:"until,omitempty"`
	ActorID string                `json:"actor_id,omitempty"`
}

// exportWire is the wire form of the body of SystemLogs.Export.
type exportWire struct {
	logWire
	Timezone string `json:"timezone,omitempty"`
}

// unixTime is Unix seconds as a time; 0 is the zero time (no bound).
func unixTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(n, 0)
}

// unixOf is t in Unix seconds; the zero time is 0.
func unixOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func logQuery(x *inv) (*access.SystemLogQuery, error) {
	if w, ok := x.body.(*logWire); ok {
		return &access.SystemLogQuery{Topic: w.Topic, Since: unixTime(w.Since), Until: unixTime(w.Until), ActorID: w.ActorID}, nil
	}
	since, err := x.t("since")
	if err != nil {
		return nil, err
	}
	until, err := x.t("until")
	if err != nil {
		return nil, err
	}
	return &access.SystemLogQuery{Topic: access.SystemLogTopic(x.s("topic")), Since: since, Until: until, ActorID: x.s("actor")}, nil
}

// miscOps adds the operations of system logs, webhooks and the API server to the registry.
func miscOps(r *registry) {
	r.add(
		&opSpec{path: "system-logs list", sdk: "SystemLogs.List, SystemLogs.All", perm: "view:system_log", short: "List system-log entries, newest first", paged: true, body: bodyOf[logWire](),
			flags: logFlags, cols: []string{"@timestamp:TIME", "_source.event.type:EVENT", "_source.actor.display_name:ACTOR", "_source.event.display_message:MESSAGE"},
			ex: "  access --fake system-logs list --since 7d --topic door_openings",
			run: func(x *inv) (any, error) {
				q, err := logQuery(x)
				if err != nil {
					return nil, err
				}
				q.PageNum, q.PageSize = x.page()
				if x.b("all") {
					return seq(x.c.SystemLogs.All(x.a.ctx, q)), nil
				}
				v, _, err := x.c.SystemLogs.List(x.a.ctx, q)
				if v == nil {
					v = []access.SystemLog{}
				}
				return v, err
			}},
		&opSpec{path: "system-logs export", sdk: "SystemLogs.Export", perm: "view:system_log", short: "Export system logs as CSV (ranges over a month are fetched month by month)", body: bodyOf[exportWire](),
			flags: append(append([]flagSpec{}, logFlags...),
				flagSpec{name: "timezone", usage: "IANA time zone of the CSV's times (default $TZ or UTC)"},
				flagSpec{name: "output-file", shorthand: "O", usage: "write the CSV to `FILE` (default stdout); a partial file is removed on failure or Ctrl-C", notBody: true}),
			ex:  "  access --fake system-logs export --since 24h --topic door_openings -O logs.csv",
			run: runExport},
		&opSpec{path: "system-logs resource", ex: `  access --fake system-logs resource demo-clip-7`, sdk: "SystemLogs.GetResource", perm: "view:system_log", short: "Fetch the video paths of a log entry's resource",
			args: []argSpec{{name: "resource-id", about: "the id of a log entry's target of type activities_resource (system-logs list shows it)"}},
			run:  func(x *inv) (any, error) { v, _, err := x.c.SystemLogs.GetResource(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "system-logs static", ex: `  access --fake system-logs static /activities_resource/thumbnail/demo-clip-7.jpg -O clip.jpg`, sdk: "SystemLogs.DownloadStatic", perm: "view:system_log", short: "Download a static file (avatar, preview, video, thumbnail)",
			args: []argSpec{{name: "path"}}, flags: []flagSpec{{name: "output-file", shorthand: "O", usage: "write to `FILE` (- for stdout)"}},
			run: func(x *inv) (any, error) {
				return download(x, x.s("output-file"), func(w io.Writer) error {
					_, err := x.c.SystemLogs.DownloadStatic(x.a.ctx, x.arg(0), w)
					return err
				})
			}},
	)
	events := make([]string, 0)
	for _, e := range access.AllEvents() {
		events = append(events, string(e))
	}
	whFlags := []flagSpec{{name: "endpoint", usage: "the URL deliveries go to (required)"}, {name: "name", usage: "endpoint name (required)"},
		{name: "event", kind: fStrings, usage: "events to deliver (required)", values: events},
		{name: "header-file", usage: "read the headers sent with each delivery from `FILE`, one NAME=VALUE a line (- for stdin; 3.1.30 or later)"},
		{name: "header", usage: "not accepted: a header's value (often the endpoint's secret) on the command line shows in ps and the shell history",
			refuse: &secretFlagError{"a webhook header", "--header-file FILE (NAME=VALUE lines) or --data @FILE"}}}
	whCols := []string{"id", "name", "endpoint", "events"}
	r.add(
		&opSpec{path: "webhooks list", ex: `  access --fake webhooks list`, sdk: "Webhooks.List", perm: "view:webhook", short: "List webhook endpoints (the table leaves the signing secrets out; JSON has them)", cols: whCols,
			run: func(x *inv) (any, error) { v, _, err := x.c.Webhooks.List(x.a.ctx); return v, err }},
		&opSpec{path: "webhooks create", sdk: "Webhooks.Create", perm: "edit:webhook", short: "Add a webhook endpoint", write: true, body: bodyOf[access.WebhookEndpointRequest](), flags: whFlags, cols: whCols,
			ex: "  access --fake webhooks create --name laptop --endpoint https://example.com/hook --event access.door.unlock",
			run: func(x *inv) (any, error) {
				req, err := webhookRequest(x)
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.Webhooks.Create(x.a.ctx, req)
				return v, err
			}},
		&opSpec{path: "webhooks ensure", ex: `  access --fake webhooks ensure --name "Door log" --endpoint https://hooks.example.com/access --event access.door.unlock`, sdk: "Webhooks.Ensure", perm: "view:webhook, edit:webhook",
			short: "Make sure an endpoint exists for a URL (created, or updated to these fields)", write: true, body: bodyOf[access.WebhookEndpointRequest](), flags: whFlags, cols: whCols,
			run: func(x *inv) (any, error) {
				req, err := webhookRequest(x)
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.Webhooks.Ensure(x.a.ctx, req)
				return v, err
			}},
		&opSpec{path: "webhooks update", ex: `  access --fake webhooks update 0e5a7f3c-5b2d-4c1e-9f8a-2d6b4c8e1a37 --name "Schedule log" --endpoint https://127.0.0.1:9443/access/schedules --event access.unlock_schedule.activate`, sdk: "Webhooks.Update", perm: "edit:webhook", short: "Change a webhook endpoint (all fields required)", write: true, body: bodyOf[access.WebhookEndpointUpdate](),
			args: []argSpec{{name: "endpoint-id"}}, flags: whFlags, cols: whCols,
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.WebhookEndpointUpdate, error) {
					req, err := webhookFields(x)
					return access.WebhookEndpointUpdate(req), err
				})
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.Webhooks.Update(x.a.ctx, x.arg(0), &req)
				return v, err
			}},
		&opSpec{path: "webhooks delete", ex: `  access --fake webhooks delete 0e5a7f3c-5b2d-4c1e-9f8a-2d6b4c8e1a37`, sdk: "Webhooks.Delete", perm: "edit:webhook", short: "Delete a webhook endpoint", write: true,
			args: []argSpec{{name: "endpoint-id"}},
			run: func(x *inv) (any, error) {
				_, err := x.c.Webhooks.Delete(x.a.ctx, x.arg(0))
				return done{"deleted endpoint " + x.arg(0)}, err
			}},
		&opSpec{path: "api-server upload-certificate", ex: `  access --fake api-server upload-certificate --cert cert.pem --key key.pem`, sdk: "APIServer.UploadCertificate", perm: "edit:api_server",
			short: "Upload the HTTPS certificate of port 12445 (takes effect after Access restarts)", write: true,
			flags: []flagSpec{{name: "key", usage: "PEM private key `FILE` (required)"}, {name: "cert", usage: "PEM certificate `FILE` (required)"}},
			run: func(x *inv) (any, error) {
				if x.s("key") == "" || x.s("cert") == "" {
					return nil, usageErrorf("api-server upload-certificate: --key and --cert are required")
				}
				key, err := os.ReadFile(x.s("key"))
				if err != nil {
					return nil, usageErrorf("--key: %v", err)
				}
				cert, err := os.ReadFile(x.s("cert"))
				if err != nil {
					return nil, usageErrorf("--cert: %v", err)
				}
				_, err = x.c.APIServer.UploadCertificate(x.a.ctx, &access.CertificateUpload{Key: key, Cert: cert})
				return done{"uploaded the certificate; restart Access to use it"}, err
			}},
		&opSpec{path: "api-server delete-certificate", ex: `  access --fake api-server delete-certificate`, sdk: "APIServer.DeleteCertificate", perm: "edit:api_server", short: "Delete the uploaded HTTPS certificate", write: true,
			run: func(x *inv) (any, error) {
				_, err := x.c.APIServer.DeleteCertificate(x.a.ctx)
				return done{"deleted the certificate; restart Access to apply"}, err
			}},
	)
}

// webhookRequest reads --data or the flags of webhooks create and ensure.
func webhookRequest(x *inv) (*access.WebhookEndpointRequest, error) {
	req, err := fromData(x, func() (access.WebhookEndpointRequest, error) { return webhookFields(x) })
	return &req, err
}

// webhookFields reads the webhook flags.
func webhookFields(x *inv) (access.WebhookEndpointRequest, error) {
	req := access.WebhookEndpointRequest{Endpoint: x.s("endpoint"), Name: x.s("name")}
	for _, e := range x.ss("event") {
		req.Events = append(req.Events, access.EventType(e))
	}
	if path := x.s("header-file"); path != "" {
		h, err := x.a.readHeaderFile(path)
		if err != nil {
			return req, err
		}
		req.Headers = h
	}
	return req, nil
}

// readHeaderFile reads a webhook endpoint's headers, NAME=VALUE lines
// (blank lines and # comments skipped), from a file or stdin ("-"). An
// error names the line, never a value.
func (a *app) readHeaderFile(path string) (map[string]string, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(a.stdin, 1<<20))
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, usageErrorf("--header-file: %v", err)
	}
	h := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if k = strings.TrimSpace(k); !ok || k == "" {
			return nil, usageErrorf("--header-file %s: line %d: want NAME=VALUE", path, i+1)
		}
		h[k] = strings.TrimSpace(v)
	}
	return h, nil
}

// runExport exports the range month by month (the console refuses longer
// ranges), writing one CSV: the header of later chunks is dropped.
func runExport(x *inv) (any, error) {
	now := time.Now()
	body, err := fromData(x, func() (exportWire, error) {
		since, err := x.t("since")
		if err != nil {
			return exportWire{}, err
		}
		until, err := x.t("until")
		if err != nil {
			return exportWire{}, err
		}
		return exportWire{logWire{Topic: access.SystemLogTopic(x.s("topic")), Since: unixOf(since), Until: unixOf(until), ActorID: x.s("actor")}, x.s("timezone")}, nil
	})
	if err != nil {
		return nil, err
	}
	since, until := unixTime(body.Since), unixTime(body.Until)
	if since.IsZero() {
		since = now.Add(-24 * time.Hour)
	}
	if until.IsZero() {
		until = now
	}
	if !until.After(since) {
		return nil, usageErrorf("system-logs export: --until must be after --since")
	}
	tz := firstNonEmpty(body.Timezone, x.a.getenv("TZ"), "UTC")
	if _, err := time.LoadLocation(tz); err != nil {
		return nil, usageErrorf("--timezone %q: %v", tz, err)
	}
	fetch := func(w io.Writer) error {
		p := x.a.newProgress("row")
		defer p.Done()
		cw := &exportCounter{w: w, p: p, hook: seamsOf(x.a.ctx).exportWrote}
		for from, first := since, true; from.Before(until); first = false {
			to := from.AddDate(0, 1, 0)
			if to.After(until) {
				to = until
			}
			req := &access.SystemLogExportRequest{Topic: body.Topic, Since: from, Until: to, Timezone: tz, ActorID: body.ActorID}
			cw.skipHeader = !first
			if _, err := x.c.SystemLogs.Export(x.a.ctx, req, cw); err != nil {
				return err
			}
			from = to
		}
		return x.a.ctx.Err()
	}
	out := x.s("output-file")
	if out == "" || out == "-" {
		return nil, fetch(x.a.stdout)
	}
	if err := writeFileAtomic(x.a, out, fetch); err != nil {
		return nil, err
	}
	x.a.info(fmt.Sprintf("wrote %s", out))
	return nil, nil
}

// exportCounter counts the CSV's rows (the header line is not one) and
// bytes for the progress line, and drops the header line of a
// continuation chunk.
type exportCounter struct {
	w          io.Writer
	p          *output.Progress
	bytes      int64
	skipHeader bool
	hook       func(int64)
	lines      int64 // the lines ended so far, the header's included
	quoted     bool  // inside a quoted field, whose newlines end no line
}

func (c *exportCounter) Write(b []byte) (int, error) {
	n := len(b)
	if c.skipHeader {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return n, nil
		}
		c.skipHeader = false
		b = b[i+1:]
	}
	if _, err := c.w.Write(b); err != nil {
		return 0, err
	}
	c.bytes += int64(len(b))
	before := c.rows()
	for _, ch := range b {
		switch {
		case ch == '"':
			c.quoted = !c.quoted // "" inside a quoted field toggles twice
		case ch == '\n' && !c.quoted:
			c.lines++
		}
	}
	c.p.Add(c.rows()-before, c.bytes)
	if c.hook != nil {
		c.hook(c.bytes)
	}
	return n, nil
}

// rows is the number of data rows written: the lines after the header.
func (c *exportCounter) rows() int64 { return max(c.lines-1, 0) }
