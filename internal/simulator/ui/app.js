// Live updates for the access fake web console: Server-Sent Events
// replace the page's sections, and the buttons post without a reload.
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
    es.onopen = function () { live.textContent = "live"; live.className = "live on"; };
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

  // Buttons: post the form (with the clicked button's value) and show
  // the answer; the live update redraws the page.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.hasAttribute("data-act")) return;
    e.preventDefault();
    var body = new URLSearchParams(new FormData(form));
    var btn = e.submitter;
    if (btn && btn.name) body.set(btn.name, btn.value);
    fetch(form.action, { method: "POST", body: body, headers: { "X-Console": "1" }, credentials: "same-origin" })
      .then(function (r) { return r.text().then(function (t) { toast(t.trim() || "Done", !r.ok); }); })
      .catch(function (err) { toast(String(err), true); });
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
