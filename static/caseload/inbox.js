/* Pathways admin: live inbox, thread and alert badge. No framework: the server renders fragments,
 * this swaps them in when the WebSocket says something changed, or polls when it cannot connect. */
(function () {
  "use strict";
  var page = document.querySelector("[data-live]");
  var badge = document.getElementById("pw-alert-badge");
  var status = document.getElementById("live-status");
  var POLL_MS = 5000, SAFETY_MS = 30000;
  var socket = null, open = false, timer = null, retries = 0, dirty = false, loading = false;

  function setStatus(text) { if (status) { status.textContent = text; } }

  function editing(region) {
    var active = document.activeElement;
    return !!(active && region.contains(active) && /^(TEXTAREA|INPUT|SELECT)$/.test(active.tagName));
  }

  function refresh() {
    if (badge && badge.getAttribute("data-url")) {
      fetch(badge.getAttribute("data-url"), { credentials: "same-origin" }).then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (!data) { return; }
          badge.textContent = String(data.alerts);
          badge.hidden = !data.alerts;
          badge.setAttribute("data-count", String(data.alerts));
        }).catch(function () {});
    }
    if (!page || loading) { return; }
    var region = document.getElementById("live-region");
    if (!region) { return; }
    // Never replace a draft someone is typing in: refresh once they leave the field.
    if (editing(region)) { dirty = true; return; }
    loading = true;
    fetch(page.getAttribute("data-partial"), { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html !== null && !editing(region)) { region.innerHTML = html; wireOnce(region); dirty = false; }
      }).catch(function () {}).then(function () { loading = false; });
  }

  function schedule() {
    window.clearTimeout(timer);
    timer = window.setTimeout(function () { refresh(); schedule(); }, open ? SAFETY_MS : POLL_MS);
  }

  function connect() {
    if (!window.WebSocket) { setStatus("polling"); return; }
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/caseload/inbox/";
    try { socket = new WebSocket(url); } catch (e) { setStatus("polling"); return; }
    socket.onopen = function () { open = true; retries = 0; setStatus("live"); schedule(); };
    socket.onmessage = function (event) {
      var data = null;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (!data || data.type !== "changed") { return; }
      if (page && page.getAttribute("data-live") === "thread" && data.conversation_id !== page.getAttribute("data-conversation")) {
        if (badge) { refreshBadgeOnly(); }
        return;
      }
      refresh();
    };
    socket.onclose = function () {
      open = false;
      setStatus("polling");
      schedule();
      if (retries < 5) { retries += 1; window.setTimeout(connect, 1500 * retries); }
    };
  }

  function refreshBadgeOnly() {
    var saved = page; page = null; refresh(); page = saved;
  }

  // A form submits once: a double-click sends one request (the server is idempotent as well).
  function wireOnce(root) {
    Array.prototype.forEach.call(root.querySelectorAll("form[data-once]"), function (form) {
      form.addEventListener("submit", function (event) {
        if (form.getAttribute("data-sent")) { event.preventDefault(); return; }
        form.setAttribute("data-sent", "1");
        var submitter = event.submitter;
        if (submitter && submitter.name) {
          var hidden = document.createElement("input");
          hidden.type = "hidden"; hidden.name = submitter.name; hidden.value = submitter.value;
          form.appendChild(hidden);
        }
        window.setTimeout(function () {
          Array.prototype.forEach.call(form.querySelectorAll("button"), function (b) { b.disabled = true; });
        }, 0);
      });
    });
  }

  document.addEventListener("focusout", function () { if (dirty) { window.setTimeout(refresh, 50); } });
  wireOnce(document);
  if (page || badge) { connect(); schedule(); }
}());
