package access

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDevicesGetSettings(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/devices/{id}/settings", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, false)
		assert.Equal(t, "942a6f4247b2", r.PathValue("id"))
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","data":{"access_methods":{"nfc":{"enabled":"yes"}},"device_id":"942a6f4247b2"},"msg":"success"}`)
	})
	s, _, err := c.Devices.GetSettings(context.Background(), "942a6f4247b2")
	require.NoError(t, err)
	assert.Equal(t, "942a6f4247b2", s.DeviceID)
	require.NotNil(t, s.AccessMethods.NFC)
	assert.Equal(t, Yes, s.AccessMethods.NFC.Enabled)

	_, _, err = c.Devices.GetSettings(context.Background(), "")
	assert.ErrorIs(t, err, ErrValidation)
}

func TestDevicesUpdateSettingsSendsOnlyWhatIsSet(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var bodies []string
	mux.HandleFunc("PUT /api/v1/developer/devices/{id}/settings", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, true)
		assert.Equal(t, "942a6f4247b2", r.PathValue("id"))
		bodies = append(bodies, readJSONBody(t, r))
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","data":"success","msg":"success"}`)
	})
	resp, err := c.Devices.UpdateSettings(context.Background(), "942a6f4247b2", &DeviceSettingsUpdate{NFC: &AccessMethod{Enabled: No}})
	require.NoError(t, err)
	assert.Equal(t, CodeSuccess, resp.Code)
	_, err = c.Devices.UpdateSettings(context.Background(), "942a6f4247b2", &DeviceSettingsUpdate{})
	require.NoError(t, err)
	require.Len(t, bodies, 2)
	assert.Equal(t, `{"access_methods":{"nfc":{"enabled":"no"}}}`, bodies[0])
	assert.Equal(t, `{"access_methods":{}}`, bodies[1])

	_, err = c.Devices.UpdateSettings(context.Background(), "942a6f4247b2", nil)
	assert.ErrorIs(t, err, ErrValidation)
	_, err = c.Devices.UpdateSettings(context.Background(), "", &DeviceSettingsUpdate{})
	assert.ErrorIs(t, err, ErrValidation)
}
