package access_test

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQRCodesDownloadOnTheFake(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	vs, _, err := c.Visitors.List(ctx, &access.VisitorListOptions{PageSize: 1})
	require.NoError(t, err)
	id := vs[0].ID
	require.NoError(t, ignoreResp(c.Visitors.AssignQRCode(ctx, id)))
	var buf bytes.Buffer
	resp, err := c.QRCodes.Download(ctx, id, &buf)
	require.NoError(t, err)
	assert.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	img, err := png.Decode(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err, "a real PNG")
	b := img.Bounds()
	assert.Equal(t, b.Dx(), b.Dy(), "square")
	assert.Greater(t, b.Dx(), 80)
	req := srv.RequestsFor(accesstest.OpQRCodesDownload)[0]
	assert.Equal(t, "/api/v1/developer/credentials/qr_codes/download/"+id, req.Path)

	// A user id is not a visitor.
	assert.ErrorIs(t, ignoreResp(c.Visitors.AssignQRCode(ctx, vs[0].InviterID)), access.ErrNotFound)
}

func TestQRCodesDownloadStreamsTheSample(t *testing.T) {
	t.Parallel()
	c, mux := mockConsole(t)
	pngBytes := sampleFile(t, "qr_code.png")
	mux.HandleFunc("GET /api/v1/developer/credentials/qr_codes/download/{id}", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "15a90692-6f3b-4e1c-9886-bcd15e9c3f2d", r.PathValue("id"))
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(pngBytes)
	})
	var buf bytes.Buffer
	resp, err := c.QRCodes.Download(context.Background(), "15a90692-6f3b-4e1c-9886-bcd15e9c3f2d", &buf)
	require.NoError(t, err)
	assert.Equal(t, pngBytes, buf.Bytes())
	assert.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	_, err = png.Decode(&buf)
	require.NoError(t, err)
}

func TestQRCodesDownloadErrorsWriteNothing(t *testing.T) {
	t.Parallel()
	c, mux := mockConsole(t)
	mux.HandleFunc("GET /api/v1/developer/credentials/qr_codes/download/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		_, _ = w.Write([]byte(`{"code":"CODE_RESOURCE_NOT_FOUND","msg":"The visitor has no QR code."}`))
	})
	var buf bytes.Buffer
	_, err := c.QRCodes.Download(context.Background(), "v1", &buf)
	assert.ErrorIs(t, err, access.ErrNotFound)
	assert.Zero(t, buf.Len())
	_, err = c.QRCodes.Download(context.Background(), "", &buf)
	assert.ErrorIs(t, err, access.ErrValidation)
	_, err = c.QRCodes.Download(context.Background(), "v1", nil)
	assert.ErrorIs(t, err, access.ErrValidation)
}
