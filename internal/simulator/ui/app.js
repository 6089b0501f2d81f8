// Live updates for the access fake web console: Server-Sent Events
// replace the page's sections, and the buttons call the control API.
"use strict";
(function () {
  var live = document.getElementById("live");
  var toastTimer;
  function toast(text, bad) {
    var t = document.getElementById("toast");
    t.textContent = text;
    t.className = "toast show" + (bad ? " err" : "");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { t.className = "toast"; }, 2500);
  }

  function connect() {
    var es = new EventSource("/ui/events");
    // Live once the current sections (sent first) are applied: "ready".
    es.addEventListener("ready", function () { live.textContent = "live"; live.className = "live on"; });
    // "connecting" (the page's own text) until the first answer; offline
    // once the stream fails (EventSource then retries by itself).
    es.onerror = function () { live.textContent = "offline"; live.className = "live"; };
    es.addEventListener("section", function (e) {
      var m = JSON.parse(e.data);
      var el = document.getElementById(m.id);
      if (!el) return;
      // Keep what is being typed into a card field across an update.
      var active = document.activeElement, keep = null;
      if (active && active.name === "card" && el.contains(active)) {
        keep = { device: active.form.elements.device.value, value: active.value, start: active.selectionStart };
      }
      var typed = {};
      el.querySelectorAll("input[name=card]").forEach(function (i) { if (i.value) typed[i.form.elements.device.value] = i.value; });
      el.innerHTML = m.html;
      el.querySelectorAll("input[name=card]").forEach(function (i) {
        var d = i.form.elements.device.value;
        if (typed[d]) i.value = typed[d];
        if (keep && keep.device === d) { i.focus(); try { i.setSelectionRange(keep.start, keep.start); } catch (x) {} }
      });
      tick();
    });
    es.addEventListener("feed", function (e) {
      var m = JSON.parse(e.data);
      var feed = document.getElementById("feed");
      feed.insertAdjacentHTML("afterbegin", m.html);
      while (feed.children.length > 200) feed.removeChild(feed.lastElementChild);
    });
  }

  // Buttons: each calls the control API (/_fake/v1/), the one Go tests,
  // access fake trigger and other languages call, with the page's
  // credential (an HttpOnly cookie set with the page; never the token);
  // the live update redraws the page.
  var acts = {
    "ring": function (v) { return ["/doorbell/ring", { device: v("device") }, function (r) { return "Doorbell rings (request " + r.request_id + ")"; }]; },
    "cancel-ring": function (v) { return ["/doorbell/cancel", { device: v("device") }, "Doorbell call cancelled"]; },
    "tap": function (v) {
      return ["/card/tap", { device: v("device"), card: v("card") }, function (r) {
        return r.enrolled ? "Card " + v("card") + " enrolled" : r.granted ? "Access granted: card " + v("card") : "Access denied: " + r.reason;
      }];
    },
    "open": function (v) { return ["/door/open", { door: v("door") }, "Door opened"]; },
    "close": function (v) { return ["/door/close", { door: v("door") }, "Door closed"]; },
    "exit": function (v) { return ["/door/exit", { door: v("door") }, "Exit button pressed"]; },
    "lockdown": function () { return ["/emergency", { mode: "lockdown" }, "Lockdown started"]; },
    "evacuation": function () { return ["/emergency", { mode: "evacuation" }, "Evacuation started"]; },
    "emergency-off": function () { return ["/emergency", { mode: "none" }, "Emergency ended"]; },
    "advance": function (v) { return ["/clock/advance", { by: v("by") }, "Clock advanced by " + v("by")]; },
    "fault": function (v) {
      var num = function (k) { return v(k) === "" ? 0 : Number(v(k)); };
      return ["/faults", {
        op: v("op"), status: num("status"), code: v("code"), retry_after: num("retry_after") + "s",
        delay: num("delay_ms") + "ms", drop_connection: v("drop") !== "", times: num("times")
      }, "Fault injected into " + v("op")];
    },
    "clear-faults": function () { return ["/faults/clear", {}, "Faults cleared"]; },
    "restart": function () {
      return ["/console/restart", {}, function (r) {
        return "Console restarting: through the proxy 502, then 401, until " + r.unauthorized_until.slice(11, 19) + " UTC";
      }];
    }
  };
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.hasAttribute("data-act")) return;
    e.preventDefault();
    var data = new FormData(form);
    var btn = e.submitter;
    if (btn && btn.name) data.set(btn.name, btn.value);
    var v = function (k) { return String(data.get(k) || "").trim(); };
    var act = acts[v("do")];
    if (!act) { toast("unknown action " + v("do"), true); return; }
    var call = act(v);
    fetch("/_fake/v1" + call[0], {
      method: "POST", body: JSON.stringify(call[1]), credentials: "same-origin",
      headers: { "Content-Type": "application/json" }
    }).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) { toast((j.error && j.error.message) || ("HTTP " + r.status), true); return; }
        toast(typeof call[2] === "function" ? call[2](j.result) : call[2], false);
      });
    }).catch(function (err) { toast(String(err), true); });
  });

  // People search as you type.
  var search = document.getElementById("people-search");
  var pending;
  function find() {
    var q = search.elements.q.value;
    fetch("/ui/people?q=" + encodeURIComponent(q), { credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) { document.getElementById("people-list").innerHTML = html; });
  }
  search.addEventListener("input", function () { clearTimeout(pending); pending = setTimeout(find, 150); });
  search.addEventListener("submit", function (e) { e.preventDefault(); find(); });

  // Lock-rule countdowns, on the site's clock (which the clock controls
  // move ahead of this computer's).
  var skew = 0;
  function tick() {
    var now = document.querySelector("[data-now]");
    if (now && now.getAttribute("data-now") !== now.dataset.seen) {
      now.dataset.seen = now.getAttribute("data-now");
      skew = Number(now.getAttribute("data-now")) - Date.now();
    }
    document.querySelectorAll("[data-ends]").forEach(function (el) {
      var left = Math.max(0, Math.round((Number(el.getAttribute("data-ends")) - Date.now() - skew) / 1000));
      var h = Math.floor(left / 3600), m = Math.floor(left / 60) % 60, s = left % 60;
      el.textContent = (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(s).padStart(2, "0");
    });
  }
  setInterval(tick, 1000);
  tick();
  connect();
})();
