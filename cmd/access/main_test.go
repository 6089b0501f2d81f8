package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
	"github.com/access-dev/access/internal/testlog"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"access": func() { os.Exit(mainExit()) },
	})
}

// TestScripts runs testdata/script/*.txtar, each against its own demo
// console, once per mode: direct (ACCESS_URL is the API port) and through
// a UniFi OS console's proxy (ACCESS_URL ends in
// /proxy/access/integration/v1/developer, the token goes as an X-API-KEY).
// The environment carries ACCESS_URL (and URL), ACCESS_TOKEN,
// ACCESS_FINGERPRINT, MODE (direct or proxy), and TOKEN (to assert it is
// never printed).
func TestScripts(t *testing.T) {
	t.Parallel()
	accesstest.ForEachMode(t, func(t *testing.T, mode access.Mode) {
		t.Parallel()
		testscript.Run(t, scriptParams(mode))
	})
}

func scriptParams(mode access.Mode) testscript.Params {
	return testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// The server's error log (clients that reject its
			// certificate) goes to the script's log, shown when it fails.
			srv := accesstest.NewServer(accesstest.WithDemoData(), accesstest.WithErrorLog(testlog.New(env.T())))
			env.Defer(srv.Close)
			env.Values["srv"] = srv
			env.Setenv("MODE", mode.String())
			env.Setenv("ACCESS_URL", srv.URLFor(mode))
			env.Setenv("ACCESS_TOKEN", srv.Token())
			env.Setenv("ACCESS_FINGERPRINT", srv.Fingerprint())
			env.Setenv("TOKEN", srv.Token())
			env.Setenv("FINGERPRINT", srv.Fingerprint())
			env.Setenv("URL", srv.URLFor(mode))
			env.Setenv("HOSTPORT", strings.TrimPrefix(srv.URL(), "https://"))
			env.Setenv("ACCESS_CONFIG_DIR", env.WorkDir+"/config")
			env.Setenv("NO_COLOR", "")
			env.Setenv("TZ", "UTC")
			// Under -race, each command would otherwise sleep a second
			// at exit (the race runtime's default atexit_sleep_ms).
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exitcode N access ARGS... runs the command line in the test
			// process, with the script's environment and directory for
			// relative files, and checks that it exits with N.
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				if args[1] != "access" {
					ts.Fatalf("usage: exitcode N access ARGS...")
				}
				getenv := func(k string) string {
					if k == "PWD" {
						return ts.MkAbs(".")
					}
					return ts.Getenv(k)
				}
				got := run(context.Background(), args[2:], strings.NewReader(""), ts.Stdout(), ts.Stderr(), getenv)
				if got != want {
					ts.Fatalf("exit code %d, want %d", got, want)
				}
			},
			// writeenv FILE VAR writes $VAR to FILE.
			"writeenv": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(ts.Getenv(args[1])+"\n"), 0o600))
			},
			// expandenv FILE replaces $VAR in FILE with the script's
			// environment (for a URL in a hand-written config).
			"expandenv": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o600))
			},
			// filemode FILE MODE checks a file's permission bits (octal).
			"filemode": func(ts *testscript.TestScript, neg bool, args []string) {
				fi, err := os.Stat(ts.MkAbs(args[0]))
				ts.Check(err)
				if got := fmt.Sprintf("%04o", fi.Mode().Perm()); got != args[1] {
					ts.Fatalf("%s has mode %s, want %s", args[0], got, args[1])
				}
			},
			// dropsubscribers drops the notification WebSockets, and
			// waitconnections N waits until N were made in all.
			"dropsubscribers": func(ts *testscript.TestScript, neg bool, args []string) {
				server(ts).DropNotificationClients()
			},
			"waitconnections": func(ts *testscript.TestScript, neg bool, args []string) {
				n, _ := strconv.Atoi(args[0])
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				ts.Check(server(ts).WaitNotificationConnections(ctx, n))
			},
			// setenv-stdout VAR puts the last command's stdout, trimmed,
			// in $VAR.
			"setenv-stdout": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
			},
			// waitsubscribers N waits until N clients hold the
			// notifications WebSocket.
			"waitsubscribers": func(ts *testscript.TestScript, neg bool, args []string) {
				n, _ := strconv.Atoi(args[0])
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				ts.Check(server(ts).WaitNotificationClients(ctx, n))
			},
			// addtoken NAME PERM... makes a token with only those
			// permissions and puts it in $NAME.
			"addtoken": func(ts *testscript.TestScript, neg bool, args []string) {
				tok := "tok-" + args[0] + "-0123456789abcdef"
				perms := make([]accesstest.Permission, 0, len(args)-1)
				for _, p := range args[1:] {
					perms = append(perms, accesstest.Permission(p))
				}
				server(ts).AddToken(tok, perms...)
				ts.Setenv(args[0], tok)
			},
			// revoke NAME revokes the token in $NAME.
			"revoke": func(ts *testscript.TestScript, neg bool, args []string) {
				server(ts).RevokeToken(ts.Getenv(args[0]))
			},
			// inject OP STATUS CODE [TIMES] makes the fake answer OP with an error.
			"inject": func(ts *testscript.TestScript, neg bool, args []string) {
				st, _ := strconv.Atoi(args[1])
				f := accesstest.Fault{Status: st}
				if len(args) > 2 {
					f.Code = access.ErrorCode(args[2])
				}
				if len(args) > 3 {
					f.Times, _ = strconv.Atoi(args[3])
				}
				server(ts).Inject(accesstest.Op(args[0]), f)
			},
			// delay OP DURATION [TIMES] holds the fake's answers to OP back.
			"delay": func(ts *testscript.TestScript, neg bool, args []string) {
				d, err := time.ParseDuration(args[1])
				ts.Check(err)
				f := accesstest.Fault{Delay: d}
				if len(args) > 2 {
					f.Times, _ = strconv.Atoi(args[2])
				}
				server(ts).Inject(accesstest.Op(args[0]), f)
			},
			// ring DEVICE rings a doorbell from the console side.
			"ring": func(ts *testscript.TestScript, neg bool, args []string) {
				_, err := server(ts).Client().Devices.TriggerDoorbell(context.Background(), args[0], &access.DoorbellRequest{})
				ts.Check(err)
			},
			// tapcard DEVICE NUMBER completes an enrollment session.
			"tapcard": func(ts *testscript.TestScript, neg bool, args []string) {
				_, err := server(ts).TapCard(args[0], args[1])
				ts.Check(err)
			},
			// identityresource TYPE ID NAME adds an Identity resource
			// (ev_station, vpn or wifi) to the fake.
			"identityresource": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 {
					ts.Fatalf("usage: identityresource TYPE ID NAME")
				}
				server(ts).AddIdentityResource(access.IdentityResourceType(args[0]), access.IdentityResource{ID: args[1], Name: args[2]})
			},
			// usercount N checks the fake holds N users.
			"usercount": func(ts *testscript.TestScript, neg bool, args []string) {
				got := len(server(ts).Users())
				if want, _ := strconv.Atoi(args[0]); got != want {
					ts.Fatalf("the fake holds %d users, want %d", got, want)
				}
			},
			// envdoor NAME VAR puts the id of the door named NAME in $VAR.
			"doorid": func(ts *testscript.TestScript, neg bool, args []string) {
				for _, d := range server(ts).Doors() {
					if d.Name == args[0] {
						ts.Setenv(args[1], d.ID)
						return
					}
				}
				ts.Fatalf("no door %q", args[0])
			},
			// doorposition ID open|close moves the door as its position
			// sensor reports it (the fake publishes the change).
			"doorposition": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Check(server(ts).SetDoorPosition(args[0], args[1] == "open"))
			},
			// doorstate ID checks the door's relay status.
			"doorstate": func(ts *testscript.TestScript, neg bool, args []string) {
				d, ok := server(ts).Door(args[0])
				if !ok || string(d.LockRelayStatus) != args[1] {
					ts.Fatalf("door %s: %+v, want %s", args[0], d.LockRelayStatus, args[1])
				}
			},
			// startfake starts an access fake (demo site, no web console)
			// in the test process and points ACCESS_URL, ACCESS_TOKEN,
			// ACCESS_FINGERPRINT and TOKEN at it, for access fake trigger.
			// startfake [DIR] starts a fake (the demo, or the seed
			// folder DIR, as access fake --seed-from DIR).
			"startfake": func(ts *testscript.TestScript, neg bool, args []string) {
				cfg := simulator.Config{Addr: "127.0.0.1:0", Demo: true, NoUI: true}
				if len(args) > 0 {
					cfg.SeedFrom = ts.MkAbs(args[0])
				}
				sim, err := simulator.Start(cfg)
				ts.Check(err)
				ts.Defer(func() { _ = sim.Close() })
				st := sim.Sites[0]
				ts.Setenv("ACCESS_URL", st.URL)
				ts.Setenv("ACCESS_TOKEN", st.Token())
				ts.Setenv("ACCESS_FINGERPRINT", st.Fingerprint)
				ts.Setenv("TOKEN", st.Token())
			},
			// writecacert FILE [other] writes the fake's certificate as
			// PEM to FILE, or with "other" a certificate that did not
			// sign it.
			"writecacert": func(ts *testscript.TestScript, neg bool, args []string) {
				der := server(ts).Certificate()
				if len(args) > 1 && args[1] == "other" {
					der = otherCertificate(ts)
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
			},
			// fixture NAME writes a generated file into the work dir.
			"fixture": func(ts *testscript.TestScript, neg bool, args []string) {
				switch args[0] {
				case "users.csv":
					var b strings.Builder
					b.WriteString("first_name,last_name,email,employee_number\n")
					for i := 0; i < 5; i++ {
						fmt.Fprintf(&b, "New%d,Person,new%d@example.com,E-%03d\n", i, i, i)
					}
					ts.Check(os.WriteFile(ts.MkAbs("users.csv"), []byte(b.String()), 0o600))
				}
			},
		},
	}
}

// otherCertificate is a self-signed CA certificate for 127.0.0.1 that
// signed nothing the fake serves.
func otherCertificate(ts *testscript.TestScript) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ts.Check(err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	ts.Check(err)
	return der
}

func server(ts *testscript.TestScript) *accesstest.Server {
	return ts.Value("srv").(*accesstest.Server)
}
