package simulator

import "github.com/access-dev/access/accesstest"

// The web console's actions: its buttons call the control API
// (control.go) from the page's script (ui/app.js), with the page's
// credential, as access fake trigger and other languages do.

// knownOps are offered for fault injection (any Service.Method works).
var knownOps = []string{
	string(accesstest.OpDoorsList), string(accesstest.OpDoorsGet), string(accesstest.OpDoorsUnlock),
	string(accesstest.OpDevicesList), string(accesstest.OpDevicesTriggerDoorbell),
	string(accesstest.OpUsersGet), "Users.List", "Users.Create", string(accesstest.OpVisitorsList), "Visitors.Create",
	string(accesstest.OpNotificationsSubscribe), string(accesstest.OpWebhooksCreate), string(accesstest.OpSystemLogsList),
}
