package simulator

// ControlRoutes lists the control API's routes as "METHOD /path" (under
// ControlPrefix), for the test that checks them against openapi.json.
func ControlRoutes() []string {
	out := make([]string, 0, len(controlRoutes))
	for _, rt := range controlRoutes {
		out = append(out, rt.method+" "+rt.path)
	}
	return out
}
