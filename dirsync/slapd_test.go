package dirsync_test

// The test harness: a real OpenLDAP server (Debian's slapd) on a free
// loopback port, with a temporary slapd.conf, a small schema for Active
// Directory's userAccountControl and sAMAccountName, entries loaded with
// slapadd, and Active Directory's limits (1,000 entries per search, any
// number through paged results).

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	testSuffix   = "dc=example,dc=com"
	testPeople   = "ou=people," + testSuffix
	testBindDN   = "cn=sync,ou=service," + testSuffix
	testPassword = "sync-password"
	testAdminDN  = "cn=admin," + testSuffix
	testAdminPW  = "admin-password"
)

// slapdBinaries finds slapd and slapadd: the test skips without them,
// and fails under CI=true, where .ci/run installs them.
func slapdBinaries(tb testing.TB) (slapd, slapadd string) {
	tb.Helper()
	find := func(name string) string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		if p := "/usr/sbin/" + name; fileExists(p) {
			return p
		}
		return ""
	}
	slapd, slapadd = find("slapd"), find("slapadd")
	if slapd == "" || slapadd == "" || !fileExists("/etc/ldap/schema/inetorgperson.schema") {
		if os.Getenv("CI") == "true" {
			tb.Fatal("slapd, slapadd or /etc/ldap/schema missing: .ci/run installs Debian's slapd and ldap-utils")
		}
		tb.Skip("no slapd (Debian's slapd package): the LDAP tests need a real OpenLDAP server")
	}
	return slapd, slapadd
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// slapdOptions says what a test server holds.
type slapdOptions struct {
	users int    // people under ou=people (employee numbers E00001…)
	tls   bool   // an ldaps:// listener and StartTLS, with a test CA
	ldif  string // more entries, appended as they are
}

// slapdServer is a running test slapd.
type slapdServer struct {
	URL      string // ldap://127.0.0.1:port
	LDAPSURL string // ldaps://127.0.0.1:port, with tls
	CAFile   string // the test CA, with tls
	Pin      string // the server certificate's SHA-256, with tls
	Dir      string
	cmd      *exec.Cmd
	exited   chan struct{}
}

const testSchema = `# Active Directory's attributes, for tests (their AD OIDs).
attributetype ( 1.2.840.113556.1.4.8 NAME 'userAccountControl'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.2.840.113556.1.4.221 NAME 'sAMAccountName'
  EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
objectclass ( 1.3.6.1.4.1.4203.666.11.99.1 NAME 'testADAccount'
  SUP top AUXILIARY MAY ( userAccountControl $ sAMAccountName ) )
`

// testLDIF writes the base entries, the service account the source binds
// as, three groups and n people: every 10th disabled the AD way
// (userAccountControl 514), every 3rd in the night shift.
func testLDIF(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 400)
	fmt.Fprintf(&b, `dn: %[1]s
objectClass: dcObject
objectClass: organization
o: Example
dc: example

dn: ou=people,%[1]s
objectClass: organizationalUnit
ou: people

dn: ou=groups,%[1]s
objectClass: organizationalUnit
ou: groups

dn: ou=service,%[1]s
objectClass: organizationalUnit
ou: service

dn: %[2]s
objectClass: person
cn: sync
sn: sync
userPassword: %[3]s

`, testSuffix, testBindDN, testPassword)
	for i := 1; i <= n; i++ {
		uac := 512
		if i%10 == 0 {
			uac = 514
		}
		fmt.Fprintf(&b, "dn: uid=u%05[1]d,%[2]s\nobjectClass: inetOrgPerson\nobjectClass: testADAccount\n"+
			"uid: u%05[1]d\ncn: Given%[1]d Family%[1]d\ngivenName: Given%[1]d\nsn: Family%[1]d\n"+
			"mail: u%05[1]d@example.com\nemployeeNumber: E%05[1]d\nsAMAccountName: u%05[1]d\nuserAccountControl: %[3]d\n"+
			"memberOf: cn=Staff,ou=groups,%[4]s\n", i, testPeople, uac, testSuffix)
		if i%3 == 0 {
			fmt.Fprintf(&b, "memberOf: cn=Night shift,ou=groups,%s\n", testSuffix)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// startSlapd starts a slapd for one test and stops it when the test ends.
func startSlapd(tb testing.TB, o slapdOptions) *slapdServer {
	tb.Helper()
	slapd, slapadd := slapdBinaries(tb)
	dir := tb.TempDir()
	s := &slapdServer{Dir: dir}
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "ad.schema"), []byte(testSchema), 0o600))
	must(os.Mkdir(filepath.Join(dir, "db"), 0o700))
	var tlsConf string
	if o.tls {
		s.CAFile, s.Pin = writeTestCerts(tb, dir)
		tlsConf = fmt.Sprintf("TLSCACertificateFile %[1]s/ca.pem\nTLSCertificateFile %[1]s/cert.pem\nTLSCertificateKeyFile %[1]s/key.pem\n", dir)
	}
	conf := fmt.Sprintf(`include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include %[1]s/ad.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
pidfile %[1]s/slapd.pid
argsfile %[1]s/slapd.args
%[2]s
database mdb
maxsize 268435456
suffix "%[3]s"
rootdn "%[4]s"
rootpw %[5]s
directory %[1]s/db
access to attrs=userPassword by anonymous auth by * none
access to * by users read by * none
# Active Directory's: 1,000 entries a search, any number paged.
limits * size.soft=1000 size.hard=1000 size.pr=1000 size.prtotal=unlimited
overlay memberof
`, dir, tlsConf, testSuffix, testAdminDN, testAdminPW)
	confPath := filepath.Join(dir, "slapd.conf")
	must(os.WriteFile(confPath, []byte(conf), 0o600))
	ldif := append(testLDIF(o.users), o.ldif...)
	ldifPath := filepath.Join(dir, "data.ldif")
	must(os.WriteFile(ldifPath, ldif, 0o600))
	if out, err := exec.Command(slapadd, "-q", "-f", confPath, "-l", ldifPath).CombinedOutput(); err != nil {
		tb.Fatalf("slapadd: %v\n%s", err, out)
	}

	// A free port is one the kernel just gave: another process may take
	// it before slapd binds it, so a conflict is retried.
	for attempt := 0; ; attempt++ {
		port, tlsPort := freePort(tb), 0
		urls := fmt.Sprintf("ldap://127.0.0.1:%d/", port)
		if o.tls {
			tlsPort = freePort(tb)
			urls += fmt.Sprintf(" ldaps://127.0.0.1:%d/", tlsPort)
		}
		started, err := s.run(tb, slapd, confPath, urls)
		if started {
			s.URL = fmt.Sprintf("ldap://127.0.0.1:%d", port)
			if o.tls {
				s.LDAPSURL = fmt.Sprintf("ldaps://127.0.0.1:%d", tlsPort)
			}
			tb.Cleanup(s.stop)
			return s
		}
		if attempt == 4 || !strings.Contains(err.Error(), "Address already in use") {
			tb.Fatalf("slapd did not start: %v", err)
		}
	}
}

func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// run starts slapd in the foreground and waits for its event loop's
// first "daemon: epoll: listen=…" (the debug level "conns" logs it once
// every listener is listening: "slapd starting" comes before the
// listen calls), or for its exit.
func (s *slapdServer) run(tb testing.TB, slapd, conf, urls string) (bool, error) {
	cmd := exec.Command(slapd, "-f", conf, "-h", urls, "-d", "conns")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	ready := make(chan struct{})
	var log strings.Builder
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if log.Len() < 8<<10 {
				log.WriteString(sc.Text() + "\n")
			}
			if strings.Contains(sc.Text(), "daemon: epoll: listen=") || strings.Contains(sc.Text(), "daemon: select: listen=") {
				close(ready)
				// Drain: slapd must never block on its log.
				_, _ = io.Copy(io.Discard, stderr)
				return
			}
		}
	}()
	exited := make(chan struct{})
	go func() {
		<-logDone
		_ = cmd.Wait()
		close(exited)
	}()
	select {
	case <-ready:
		s.cmd, s.exited = cmd, exited
		return true, nil
	case <-exited:
		return false, fmt.Errorf("%s\n%s", cmd.ProcessState, log.String())
	case <-time.After(30 * time.Second): // a bound on a hang, not a synchronisation
		_ = cmd.Process.Kill()
		<-exited
		return false, fmt.Errorf("slapd not listening after 30s\n%s", log.String())
	}
}

// kill stops slapd at once (SIGKILL) and waits for its exit.
func (s *slapdServer) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

func (s *slapdServer) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		s.kill()
	}
}

// writeTestCerts writes a test CA (ca.pem) and the server's certificate
// for 127.0.0.1 and localhost (cert.pem, key.pem), and returns the CA
// file and the server certificate's SHA-256 fingerprint.
func writeTestCerts(tb testing.TB, dir string) (caFile, pin string) {
	tb.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "dirsync test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		tb.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		tb.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	write := func(name, typ string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	write("ca.pem", "CERTIFICATE", caDER)
	write("cert.pem", "CERTIFICATE", der)
	write("key.pem", "PRIVATE KEY", keyDER)
	sum := sha256.Sum256(der)
	return filepath.Join(dir, "ca.pem"), hex.EncodeToString(sum[:])
}
