package access

import (
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testKeyPair makes a self-signed certificate and its key, in PEM.
func testKeyPair(t testing.TB) (certPEM, keyPEM []byte) {
	t.Helper()
	certPEM, keyPEM, err := newKeyPair()
	require.NoError(t, err)
	return certPEM, keyPEM
}

func newKeyPair() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "console.test"},
		DNSNames: []string{"console.test"}, NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1900000000, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), nil
}

// opCert and opKey are the pair the upload of allOps sends.
var opCert, opKey = func() ([]byte, []byte) {
	c, k, err := newKeyPair()
	if err != nil {
		panic(err)
	}
	return c, k
}()

func TestAPIServerUploadCertificateWire(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithRetryPolicy(RetryPolicy{MaxRetries: 3, RetryWrites: true, WaitMin: time.Millisecond, WaitMax: time.Millisecond}))
	cert, key := testKeyPair(t)
	var calls atomic.Int32
	mux.HandleFunc("POST /api/v1/developer/api_server/certificates", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		assert.Equal(t, "Bearer "+testToken, r.Header.Get("Authorization"))
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		require.NoError(t, err)
		assert.Equal(t, "multipart/form-data", mt)
		mr := multipart.NewReader(r.Body, params["boundary"])
		var parts []string
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			b, _ := io.ReadAll(p)
			parts = append(parts, p.FormName())
			switch p.FormName() {
			case "key":
				assert.Equal(t, key, b)
				assert.Equal(t, "server.key", p.FileName())
			case "cert":
				assert.Equal(t, cert, b)
				assert.Equal(t, "server.crt", p.FileName())
			}
			assert.Equal(t, "application/x-pem-file", p.Header.Get("Content-Type"))
		}
		assert.Equal(t, []string{"key", "cert"}, parts)
		if calls.Load() == 1 {
			writeRaw(w, 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`)
			return
		}
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":"success"}`)
	})
	_, err := c.APIServer.UploadCertificate(logCtx, &CertificateUpload{Key: key, Cert: cert})
	var ae *APIError
	require.ErrorAs(t, err, &ae, "an upload is never retried, even with RetryWrites")
	assert.Equal(t, int32(1), calls.Load())
	resp, err := c.APIServer.UploadCertificate(logCtx, &CertificateUpload{Key: key, Cert: cert})
	require.NoError(t, err)
	assert.Equal(t, CodeSuccess, resp.Code)
}

func TestAPIServerUploadCertificateValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t) // any request fails the test
	cert, key := testKeyPair(t)
	otherCert, otherKey := testKeyPair(t)
	for name, tc := range map[string]struct {
		req   *CertificateUpload
		field string
	}{
		"nil":              {nil, "req"},
		"empty":            {&CertificateUpload{}, "Cert"},
		"key not PEM":      {&CertificateUpload{Key: []byte("not a key"), Cert: cert}, "Key"},
		"cert not PEM":     {&CertificateUpload{Key: key, Cert: []byte("-----BEGIN NOTHING-----")}, "Cert"},
		"swapped":          {&CertificateUpload{Key: cert, Cert: key}, "Cert"},
		"key of another":   {&CertificateUpload{Key: otherKey, Cert: cert}, "Key"},
		"cert of another":  {&CertificateUpload{Key: key, Cert: otherCert}, "Key"},
		"key as cert type": {&CertificateUpload{Key: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}), Cert: cert}, "Key"},
		"corrupt key": {&CertificateUpload{Key: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: []byte("junk")}), Cert: cert},
			"Key"},
	} {
		resp, err := c.APIServer.UploadCertificate(logCtx, tc.req)
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, name) {
			assert.Equal(t, tc.field, ve.Field, name)
		}
		assert.Nil(t, resp, name)
		if tc.req != nil && len(tc.req.Key) > 0 {
			assert.NotContains(t, err.Error(), strings.TrimSpace(string(tc.req.Key)), name)
		}
	}
}

func TestCertificateUploadNeverPrintsTheKey(t *testing.T) {
	t.Parallel()
	cert, key := testKeyPair(t)
	u := &CertificateUpload{Key: key, Cert: cert}
	for _, s := range []string{fmt.Sprint(u), fmt.Sprintf("%v %+v %#v %s %x %q", *u, u, u, u, u, u)} {
		assert.NotContains(t, s, "PRIVATE")
		assert.NotContains(t, s, fmt.Sprintf("%x", key[:20]))
		assert.Contains(t, s, "REDACTED")
	}
}

func TestAPIServerDeleteCertificateWire(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("DELETE /api/v1/developer/api_server/certificates", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, false)
		assert.Empty(t, r.URL.RawQuery)
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":"success"}`)
	})
	resp, err := c.APIServer.DeleteCertificate(logCtx)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
}

// TestCertificateCheckIsX509KeyPairs checks that the upload's validation
// accepts exactly the pairs whose first PEM blocks are a certificate and a
// private key and that tls.X509KeyPair accepts, for every key type and
// encoding TLS uses, keys of other certificates, chains and extra blocks:
// checking the blocks it has already decoded (keyMatches) changes nothing.
func TestCertificateCheckIsX509KeyPairs(t *testing.T) {
	t.Parallel()
	type pair struct{ cert, key []byte }
	var pairs []pair
	keyPEM := func(typ string, der []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}) }
	certFor := func(priv crypto.Signer) []byte {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "console.test"},
			NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1900000000, 0)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, priv.Public(), priv)
		require.NoError(t, err)
		return keyPEM("CERTIFICATE", der)
	}
	pkcs8 := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		require.NoError(t, err)
		return keyPEM("PRIVATE KEY", der)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ec384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	xKey, err := ecdh.X25519().GenerateKey(rand.Reader)
	require.NoError(t, err)
	ecDER, err := x509.MarshalECPrivateKey(ec)
	require.NoError(t, err)
	ec384DER, err := x509.MarshalECPrivateKey(ec384)
	require.NoError(t, err)
	certs := map[string][]byte{"ec": certFor(ec), "ec384": certFor(ec384), "rsa": certFor(rsaKey), "ed": certFor(edKey)}
	keys := map[string][]byte{
		"ec sec1": keyPEM("EC PRIVATE KEY", ecDER), "ec pkcs8": pkcs8(ec), "ec384 sec1": keyPEM("EC PRIVATE KEY", ec384DER),
		"rsa pkcs1": keyPEM("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rsaKey)), "rsa pkcs8": pkcs8(rsaKey),
		"ed pkcs8": pkcs8(edKey), "x25519 pkcs8": pkcs8(xKey),
		"ec params first":   append(keyPEM("EC PARAMETERS", []byte{6, 8, 42, 134, 72, 206, 61, 3, 1, 7}), keyPEM("EC PRIVATE KEY", ecDER)...),
		"odd type first":    append(keyPEM("OTHERPRIVATE KEY", []byte{1}), keyPEM("EC PRIVATE KEY", ecDER)...),
		"rsa as ec type":    keyPEM("EC PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rsaKey)),
		"corrupt":           keyPEM("PRIVATE KEY", []byte("junk")),
		"certificate":       certs["ec"],
		"not pem":           []byte("key"),
		"two keys, ec last": append(keyPEM("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rsaKey)), keyPEM("EC PRIVATE KEY", ecDER)...),
	}
	for _, cert := range certs {
		for _, key := range keys {
			pairs = append(pairs, pair{cert, key})
		}
		pairs = append(pairs, pair{append(slices.Clone(cert), certs["rsa"]...), keys["ec sec1"]}, // a chain
			pair{append(keyPEM("EC PRIVATE KEY", ecDER), cert...), keys["ec sec1"]}) // a key before the certificate
	}
	accepted := 0
	for i, p := range pairs {
		cb, _ := pem.Decode(p.cert)
		kb, _ := pem.Decode(p.key)
		_, pairErr := tls.X509KeyPair(p.cert, p.key)
		want := cb != nil && cb.Type == "CERTIFICATE" && kb != nil && strings.HasSuffix(kb.Type, "PRIVATE KEY") && pairErr == nil
		err := (&CertificateUpload{Cert: p.cert, Key: p.key}).validate("APIServer.UploadCertificate")
		if assert.Equal(t, want, err == nil, "pair %d: %v / %v", i, err, pairErr) && want {
			accepted++
		}
	}
	// ec: sec1, pkcs8, odd type first (X509KeyPair skips it), the chain;
	// ec384: sec1; rsa: pkcs1, pkcs8, as ec type and two keys (both parsed
	// as PKCS #1 first); ed: pkcs8.
	assert.Equal(t, 10, accepted, "pairs that match")
}
