package connect

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// PeekCertificate connects to the console of u (port 443 when u names
// none) and returns the chain it presents, leaf first, without checking
// it, and the host:port it dialled. It is the one place the command reads
// a certificate outside a client: doctor shows and checks it, login
// prints the fingerprint of a certificate the system does not trust.
func PeekCertificate(ctx context.Context, u *url.URL) ([]*x509.Certificate, string, error) {
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, ServerName: u.Hostname()}} //nolint:gosec // only to read the certificate
	nc, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, host, err
	}
	defer nc.Close()
	certs := nc.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return nil, host, errors.New("the server presented no certificate")
	}
	return certs, host, nil
}

// VerifyWithCA checks a certificate chain against the CA certificates of
// a PEM file, for the host name.
func VerifyWithCA(leaf *x509.Certificate, chain []*x509.Certificate, caPEM []byte, host string) error {
	roots, inter := x509.NewCertPool(), x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	for _, c := range chain {
		inter.AddCert(c)
	}
	_, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots, Intermediates: inter})
	return err
}

// CertName names a certificate for doctor: its common name, else its
// subject alternative names, else "(no name)".
func CertName(c *x509.Certificate) string {
	if c.Subject.CommonName != "" {
		return c.Subject.CommonName
	}
	sans := slices.Clone(c.DNSNames)
	for _, ip := range c.IPAddresses {
		sans = append(sans, ip.String())
	}
	sans = append(sans, c.EmailAddresses...)
	for _, u := range c.URIs {
		sans = append(sans, u.String())
	}
	if len(sans) == 0 {
		return "(no name)"
	}
	return "SAN " + strings.Join(sans, " ")
}

// NormFP is a SHA-256 fingerprint as the SDK writes it: lower case,
// without colons or spaces.
func NormFP(s string) string {
	return strings.ToLower(strings.NewReplacer(":", "", " ", "").Replace(s))
}

// UntrustedCertificate reports a TLS failure that pinning would cure.
func UntrustedCertificate(err error) bool {
	var (
		verr *tls.CertificateVerificationError
		uerr x509.UnknownAuthorityError
		herr x509.HostnameError
	)
	return errors.Is(err, access.ErrCertificateMismatch) || errors.As(err, &verr) || errors.As(err, &uerr) || errors.As(err, &herr)
}
