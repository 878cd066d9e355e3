/* Pathways chat. No framework, no build step.
 * Progress: WebSocket first, SSE when it is unavailable, plain polling last. Events only notify:
 * the finished turn is always read from GET /api/v1/turns/{id}/, and a slow safety poll runs under
 * every mode, so a lost event can delay a reply by a few seconds but never lose it. */
(function () {
  "use strict";

  var T = JSON.parse(document.getElementById("pathways-i18n").textContent);
  var C = JSON.parse(document.getElementById("pathways-config").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var list = $("messages"), progress = $("progress"), announcer = $("announce"), notice = $("notice");
  var form = $("composer"), input = $("message"), sendButton = $("send"), formError = $("form-error");
  var offlineBanner = $("offline");

  var MAX_CHARS = 2000;
  var SAFETY_POLL_MS = 2500;   // under WebSocket/SSE: catches anything a lost event would have said
  var FAST_POLL_MS = 1000;     // the last fallback, when neither WebSocket nor SSE works
  var session = null;          // {conversation_id, consent_version, notice_version, mode}
  var socket = null, socketOpen = false, socketRetries = 0, pingTimer = null;
  var watchers = {};           // turn_id -> {id, mode, timer, source}
  var early = {};              // progress events that arrived before the POST answered
  var pending = null;          // {text, id}: a resend of the same text reuses its message id
  var sending = false;
  var staffShown = {};         // staff message id -> true: case managers' messages already on the page
  var staffTimer = null, staffSyncing = false;
  var STAFF_POLL_MS = 3000, STAFF_SAFETY_POLL_MS = 10000;

  function t(key) { return Object.prototype.hasOwnProperty.call(T, key) ? T[key] : key; }

  function make(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function newId() {
    if (window.crypto && window.crypto.randomUUID) { return window.crypto.randomUUID(); }
    return "m" + Date.now().toString(36) + Math.random().toString(36).slice(2, 12);
  }

  function safeUrl(url) { return typeof url === "string" && /^https?:\/\//i.test(url) ? url : null; }

  function api(method, path, body) {
    var options = { method: method, credentials: "same-origin", headers: { Accept: "application/json" } };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    return fetch(C.api + path, options).then(function (response) {
      return response.text().then(function (raw) {
        var data = {};
        try { data = raw ? JSON.parse(raw) : {}; } catch (e) { data = {}; }
        return { status: response.status, ok: response.ok, data: data };
      });
    });
  }

  function announce(text) {
    announcer.textContent = "";
    window.setTimeout(function () { announcer.textContent = text; }, 50);
  }

  function setOffline(off) { offlineBanner.hidden = !off; }
  function showError(text) { formError.textContent = text; }
  function clearError() { formError.textContent = ""; }

  function showNotice() { notice.hidden = false; }
  function hideNotice() { notice.hidden = true; }
  function consented() { return !!session && session.consent_version === C.notice_version; }

  function scrollToEnd() { window.scrollTo(0, document.body.scrollHeight); }

  // --- rendering ---------------------------------------------------------------------------------

  var PHONE = /(\b1-\d{3}-\d{3}-\d{4}\b|\(\d{3}\)\s?\d{3}-\d{4}|\b\d{3}-\d{3}-\d{4}\b|\b2-1-1\b|\b(?:988|911|211)\b)/g;

  function telHref(number) { return "tel:" + String(number).replace(/[^\d+]/g, ""); }

  function withPhoneLinks(container, text) {
    var last = 0;
    String(text).replace(PHONE, function (match, _group, offset) {
      container.appendChild(document.createTextNode(text.slice(last, offset)));
      var link = make("a", "", match);
      link.href = telHref(match);
      container.appendChild(link);
      last = offset + match.length;
      return match;
    });
    container.appendChild(document.createTextNode(text.slice(last)));
  }

  function addUser(text, isPending) {
    var item = make("li", "msg user" + (isPending ? " pending" : ""));
    item.appendChild(make("span", "who", t("you")));
    item.appendChild(make("div", "bubble", text));
    list.appendChild(item);
    scrollToEnd();
    return item;
  }

  function addStaff(message, before) {
    if (staffShown[message.id]) { return; }
    staffShown[message.id] = true;
    var item = make("li", "msg staff");
    item.setAttribute("data-staff", message.id);
    item.appendChild(make("span", "who", t("staff_from").replace("{name}", message.from_name || "")));
    var bubble = make("div", "bubble");
    withPhoneLinks(bubble, message.text);
    item.appendChild(bubble);
    if (before) { list.insertBefore(item, before); } else { list.appendChild(item); scrollToEnd(); }
    return item;
  }

  // Case managers' messages come from the timeline: placed before the person's next message on a
  // reload, appended at the end when they arrive live (WebSocket event, or the poll without one).
  function syncStaff() {
    if (!session || staffSyncing) { return; }
    staffSyncing = true;
    var current = session.conversation_id;
    api("GET", "conversations/" + current + "/messages/").then(function (result) {
      if (!result.ok || !session || session.conversation_id !== current) { return; }
      var timeline = result.data || [];
      var fresh = false;
      timeline.forEach(function (message, index) {
        if (message.author !== "staff" || staffShown[message.id]) { return; }
        var before = null;
        for (var next = index + 1; next < timeline.length && !before; next++) {
          if (timeline[next].author === "person" && timeline[next].turn_id) {
            before = list.querySelector('[data-user-turn="' + timeline[next].turn_id + '"]');
          }
        }
        addStaff(message, before);
        if (!before) { fresh = true; announce(t("staff_from").replace("{name}", message.from_name || "") + ": " + message.text); }
      });
      if (fresh) { scrollToEnd(); }
    }).catch(function () { /* the next poll tries again */ }).then(function () { staffSyncing = false; });
  }

  function scheduleStaffPoll() {
    window.clearTimeout(staffTimer);
    staffTimer = window.setTimeout(function () {
      if (session && consented()) { syncStaff(); }
      scheduleStaffPoll();
    }, socketOpen ? STAFF_SAFETY_POLL_MS : STAFF_POLL_MS);
  }

  function isNumber(value) { return typeof value === "string" && /\d/.test(value) && /^[\d\s\-().+]{3,}$/.test(value.trim()); }

  // A handoff line is [name, number, text note, url] (or a string / {label, phone}): call, text and web links.
  function handoffLine(line) {
    var parts = { label: "", number: null, sms: null, url: null };
    if (typeof line === "string") { parts.label = line; parts.number = (line.match(PHONE) || [null])[0]; return parts; }
    if (line && !Array.isArray(line) && typeof line === "object") {
      parts.label = line.label || line.name || "";
      parts.number = line.phone || line.number || null;
      parts.url = safeUrl(line.url);
      return parts;
    }
    (line || []).forEach(function (part, index) {
      if (typeof part !== "string" || !part) { return; }
      if (safeUrl(part)) { parts.url = part; } else if (parts.number === null && isNumber(part)) { parts.number = part; } else if (index === 0) { parts.label = part; } else {
        var match = part.match(/\d[\d\s\-()]{1,}\d|\d{3,}/);
        if (match) { parts.sms = { label: part, number: match[0] }; }
      }
    });
    return parts;
  }

  function renderHandoff(bubble, handoff) {
    var lines = (handoff && handoff.lines) || [];
    if (!lines.length) { return; }
    bubble.appendChild(make("strong", "", t("help_now")));
    var items = make("ul", "handoff-lines");
    lines.forEach(function (raw) {
      var line = handoffLine(raw);
      var item = make("li");
      if (line.label) { item.appendChild(make("span", "line-name", line.label)); }
      if (line.number) {
        var call = make("a", "", t("call") + " " + line.number);
        call.href = telHref(line.number);
        item.appendChild(call);
      }
      if (line.sms) {
        var text = make("a", "", line.sms.label);
        text.href = "sms:" + line.sms.number.replace(/[^\d+]/g, "");
        item.appendChild(text);
      }
      if (line.url) {
        var site = make("a", "", t("website"));
        site.href = line.url;
        site.rel = "noopener";
        site.target = "_blank";
        site.setAttribute("aria-label", t("website") + ": " + line.label);
        item.appendChild(site);
      }
      items.appendChild(item);
    });
    bubble.appendChild(items);
  }

  function renderCitations(container, citations) {
    if (!citations || !citations.length) { return; }
    var box = make("div", "sources");
    box.appendChild(make("h3", "", t("sources")));
    var items = make("ul");
    citations.forEach(function (citation) {
      var item = make("li");
      var label = citation.citation + (citation.title ? " — " + citation.title : "");
      var url = safeUrl(citation.url);
      if (url) {
        var link = make("a", "", label);
        link.href = url;
        link.rel = "noopener";
        link.target = "_blank";
        item.appendChild(link);
      } else {
        item.textContent = label;
      }
      items.appendChild(item);
    });
    box.appendChild(items);
    container.appendChild(box);
  }

  function formatDate(value) {
    if (!value) { return null; }
    var text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? value + "T12:00:00" : value;
    var date = new Date(text);
    if (isNaN(date.getTime())) { return null; }
    return date.toLocaleDateString(C.language === "es" ? "es-US" : "en-US", { year: "numeric", month: "long", day: "numeric" });
  }

  function asText(value) {
    if (value === null || value === undefined || value === "") { return null; }
    if (Array.isArray(value)) { return value.map(asText).filter(Boolean).join("; "); }
    if (typeof value === "object") {
      return Object.keys(value).map(function (key) { return key + ": " + asText(value[key]); }).join("; ");
    }
    return String(value);
  }

  function languageName(code) {
    try { return new Intl.DisplayNames([C.language], { type: "language" }).of(code) || code; } catch (e) { return code; }
  }

  function pinned(resource) {
    return !resource.is_statewide_line && typeof resource.lat === "number" && typeof resource.lon === "number";
  }

  function renderCard(resource) {
    var card = make("li", "card");
    card.appendChild(make("h4", "", resource.name));
    if (resource.is_statewide_line) {
      card.appendChild(make("p", "meta", t("statewide")));
    } else if (typeof resource.distance_km === "number" && resource.distance_km >= 0.1) {
      card.appendChild(make("p", "meta", t("mi_away").replace("{mi}", (resource.distance_km * 0.621371).toFixed(1))));
    }
    if (resource.alert) { card.appendChild(make("p", "alert", resource.alert)); }
    if (resource.service) { card.appendChild(make("p", "", resource.service)); }
    var address = resource.address || "";
    if (resource.city && address.toLowerCase().indexOf(String(resource.city).toLowerCase()) === -1) { address = [address, resource.city].filter(Boolean).join(", "); }
    if (address) { card.appendChild(make("p", "", address)); }
    var hours = asText(resource.hours);
    if (hours) { card.appendChild(make("p", "", t("hours") + ": " + hours)); }
    var documents = asText(Array.isArray(resource.documents) ? resource.documents : []);
    if (documents) { card.appendChild(make("p", "", t("bring") + ": " + documents)); }
    var attrs = resource.attributes && typeof resource.attributes === "object" ? resource.attributes : {};
    var badges = [];
    if (attrs.walk_in === true) { badges.push(t("attr.walk_in")); }
    if (attrs.walk_in === false) { badges.push(t("attr.no_walk_in")); }
    if (attrs.accepts_records === true) { badges.push(t("attr.accepts_records")); }
    if (attrs.id_not_required === true) { badges.push(t("attr.id_not_required")); }
    if (badges.length) { card.appendChild(make("p", "meta", badges.join(" · "))); }
    var languages = asText((Array.isArray(resource.languages) ? resource.languages : []).map(languageName)) || asText(resource.languages);
    if (languages) { card.appendChild(make("p", "", t("languages") + ": " + languages)); }
    var verified = formatDate(resource.last_verified_at);
    if (verified) { card.appendChild(make("p", "meta", t("last_verified") + ": " + verified)); }
    var actions = make("div", "actions");
    if (resource.phone) {
      var call = make("a", "btn", t("call") + " " + (resource.phone_display || resource.phone));
      call.href = telHref(resource.phone);
      actions.appendChild(call);
    }
    if (address || pinned(resource)) {
      var destination = pinned(resource) ? resource.lat + "," + resource.lon : address;
      var directions = make("a", "btn", t("directions"));
      directions.href = "https://www.google.com/maps/dir/?api=1&destination=" + encodeURIComponent(destination);
      directions.rel = "noopener";
      directions.target = "_blank";
      directions.setAttribute("aria-label", t("directions") + ": " + resource.name);
      actions.appendChild(directions);
    }
    var site = safeUrl(resource.url);
    if (site) {
      var web = make("a", "btn", t("website"));
      web.href = site;
      web.rel = "noopener";
      web.target = "_blank";
      web.setAttribute("aria-label", t("website") + ": " + resource.name);
      actions.appendChild(web);
    }
    if (actions.childNodes.length) { card.appendChild(actions); }
    return card;
  }

  // Leaflet (~150 KB) loads only when a reply has something to pin.
  var leafletLoading = null;
  function loadLeaflet() {
    if (window.L) { return Promise.resolve(window.L); }
    if (leafletLoading) { return leafletLoading; }
    leafletLoading = new Promise(function (resolve, reject) {
      var css = make("link");
      css.rel = "stylesheet";
      css.href = C.leaflet_css;
      document.head.appendChild(css);
      var script = make("script");
      script.src = C.leaflet_js;
      script.onload = function () { resolve(window.L); };
      script.onerror = function () { leafletLoading = null; reject(new Error("leaflet")); };
      document.head.appendChild(script);
    });
    return leafletLoading;
  }

  function renderMap(container, resources) {
    var pins = resources.filter(pinned);
    if (!pins.length) { return; }
    var box = make("div", "map");
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", t("map_label"));
    box.setAttribute("data-pins", String(pins.length));
    container.appendChild(box);
    loadLeaflet().then(function (L) {
      L.Icon.Default.imagePath = C.leaflet_images;
      var map = L.map(box, { scrollWheelZoom: false });
      var attribution = /openstreetmap\.org/.test(C.tile_url) ? "&copy; <a href=\"https://www.openstreetmap.org/copyright\">OpenStreetMap</a>" : "";
      L.tileLayer(C.tile_url, { maxZoom: 18, attribution: attribution }).addTo(map);
      var bounds = [];
      pins.forEach(function (resource) {
        L.marker([resource.lat, resource.lon], { title: resource.name, alt: resource.name }).addTo(map).bindPopup(make("span", "", resource.name));
        bounds.push([resource.lat, resource.lon]);
      });
      map.fitBounds(bounds, { padding: [24, 24], maxZoom: 14 });
    }).catch(function () { box.remove(); });
  }

  function renderResources(container, resources) {
    if (!resources || !resources.length) { return; }
    var box = make("div", "places");
    box.appendChild(make("h3", "", t("places")));
    renderMap(box, resources);
    var cards = make("ul", "cards");
    resources.forEach(function (resource) { cards.appendChild(renderCard(resource)); });
    box.appendChild(cards);
    container.appendChild(box);
  }

  function renderPlan(container, plan, question) {
    if (question) { container.appendChild(make("p", "plan-question", question)); }
    if (!plan || !plan.steps || !plan.steps.length) { return; }
    var box = make("section", "plan");
    box.appendChild(make("h3", "", t("plan.title")));
    var steps = make("ol", "plan-steps");
    plan.steps.forEach(function (step) {
      var li = make("li", "plan-step");
      li.appendChild(make("strong", "", step.title + " (" + formatDate(step.date) + ")"));
      li.appendChild(make("p", "", step.action));
      if (step.bring && step.bring.length) { li.appendChild(make("p", "", t("plan.bring") + " " + step.bring.join(", "))); }
      (step.rules || []).forEach(function (rule) {
        var p = make("p", "plan-rule", t("plan.rules") + " ");
        var url = safeUrl(rule.url);
        if (url) { var a = make("a", "", rule.citation); a.href = url; a.rel = "noopener"; p.appendChild(a); }
        else { p.appendChild(document.createTextNode(rule.citation)); }
        li.appendChild(p);
      });
      (step.places || []).forEach(function (place) {
        var p = make("p", "plan-place", t("plan.places") + " ");
        withPhoneLinks(p, [place.name, place.phone_display || place.phone, place.address].filter(Boolean).join(", "));
        li.appendChild(p);
      });
      steps.appendChild(li);
    });
    box.appendChild(steps);
    if (plan.disclaimer) { box.appendChild(make("p", "plan-disclaimer", plan.disclaimer)); }
    container.appendChild(box);
  }

  function replyText(turn) {
    if (turn.reply) { return turn.reply; }
    if (turn.status === "waiting_approval") { return t("human_mode"); }
    return t("failed");
  }

  function renderTurn(turn) {
    var existing = list.querySelector('[data-turn="' + turn.turn_id + '"]');
    var item = make("li", "msg bot" + (turn.handoff ? " handoff" : ""));
    item.setAttribute("data-turn", turn.turn_id);
    item.setAttribute("data-status", turn.status);
    item.appendChild(make("span", "who", t("navigator")));
    var bubble = make("div", "bubble");
    var text = replyText(turn);
    withPhoneLinks(bubble, text);
    if (turn.handoff) { renderHandoff(bubble, turn.handoff); }
    item.appendChild(bubble);
    renderCitations(item, turn.citations);
    renderPlan(item, turn.plan, turn.plan_question);
    renderResources(item, turn.resources);
    if (existing) { existing.replaceWith(item); } else { list.appendChild(item); }
    return text;
  }

  // --- progress ----------------------------------------------------------------------------------

  function showStep(node) {
    var key = "progress." + node;
    if (Object.prototype.hasOwnProperty.call(T, key)) { progress.textContent = T[key]; }
  }

  function updateProgress() {
    if (!Object.keys(watchers).length) { progress.textContent = ""; }
  }

  function nextNode(transition) {
    var parts = String(transition || "").split("→");
    return parts.length === 2 ? parts[1] : null;
  }

  function finish(watcher, turn) {
    if (watcher) {
      window.clearTimeout(watcher.timer);
      if (watcher.source) { watcher.source.close(); }
      delete watchers[watcher.id];
    }
    delete early[turn.turn_id];
    var text = renderTurn(turn);
    updateProgress();
    announce(t("navigator") + ": " + text);
    scrollToEnd();
  }

  function fetchTurn(watcher) {
    if (!watchers[watcher.id]) { return; }
    window.clearTimeout(watcher.timer);
    api("GET", "turns/" + watcher.id + "/").then(function (result) {
      if (!watchers[watcher.id]) { return; }
      if (!result.ok) {
        if (result.status === 403 || result.status === 404) { delete watchers[watcher.id]; updateProgress(); return; }
        schedulePoll(watcher);
        return;
      }
      var turn = result.data;
      if (turn.status === "running") {
        var nodes = turn.nodes || [];
        if (nodes.length) { showStep(nextNode(nodes[nodes.length - 1].transition)); }
        schedulePoll(watcher);
      } else {
        finish(watcher, turn);
      }
    }).catch(function () { schedulePoll(watcher, SAFETY_POLL_MS); });
  }

  function schedulePoll(watcher, delay) {
    window.clearTimeout(watcher.timer);
    var wait = delay || (watcher.mode === "poll" ? FAST_POLL_MS : SAFETY_POLL_MS);
    watcher.timer = window.setTimeout(function () { fetchTurn(watcher); }, wait);
  }

  function onProgress(event) {
    if (event && event.event === "staff_message") { syncStaff(); return; }
    if (!event || event.type !== "progress" || !event.turn_id) { return; }
    var watcher = watchers[event.turn_id];
    if (!watcher) { early[event.turn_id] = event; return; }
    if (event.status && event.status !== "running" || event.next === "end") {
      fetchTurn(watcher);
    } else {
      showStep(event.next);
    }
  }

  function startEvents(watcher) {
    if (!window.EventSource) { watcher.mode = "poll"; return; }
    watcher.mode = "sse";
    var source;
    try { source = new EventSource(C.api + "turns/" + watcher.id + "/events"); } catch (e) { watcher.mode = "poll"; return; }
    watcher.source = source;
    source.addEventListener("node", function (message) {
      try { showStep(nextNode(JSON.parse(message.data).transition)); } catch (e) { /* a malformed event only notifies */ }
    });
    source.addEventListener("done", function () { source.close(); fetchTurn(watcher); });
    source.addEventListener("timeout", function () { source.close(); });
    source.onerror = function () {
      // EventSource would reconnect and replay; polling is simpler and loses nothing.
      source.close();
      watcher.source = null;
      watcher.mode = "poll";
      schedulePoll(watcher);
    };
  }

  function watch(turnId) {
    if (watchers[turnId]) { return; }
    var watcher = { id: turnId, mode: "ws", timer: null, source: null };
    watchers[turnId] = watcher;
    showStep("intake");
    if (!socketOpen) { startEvents(watcher); }
    schedulePoll(watcher);
    if (early[turnId]) { onProgress(early[turnId]); }
  }

  // --- WebSocket ---------------------------------------------------------------------------------

  function closeSocket() {
    window.clearInterval(pingTimer);
    if (socket) { socket.onclose = null; socket.close(); }
    socket = null;
    socketOpen = false;
  }

  function connectSocket() {
    if (!session || !window.WebSocket || socket || !navigator.onLine) { return; }
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/conversations/" + session.conversation_id + "/";
    try { socket = new WebSocket(url); } catch (e) { socket = null; return; }
    socket.onopen = function () {
      socketOpen = true;
      socketRetries = 0;
      pingTimer = window.setInterval(function () {
        if (socket && socketOpen) { socket.send(JSON.stringify({ type: "ping" })); }
      }, 25000);
    };
    socket.onmessage = function (message) {
      var data = null;
      try { data = JSON.parse(message.data); } catch (e) { return; }
      onProgress(data);
    };
    socket.onclose = function () {
      window.clearInterval(pingTimer);
      socket = null;
      socketOpen = false;
      Object.keys(watchers).forEach(function (id) {
        if (watchers[id].mode === "ws") { startEvents(watchers[id]); schedulePoll(watchers[id]); }
      });
      if (session && socketRetries < 5) {
        socketRetries += 1;
        window.setTimeout(connectSocket, 1000 * socketRetries);
      }
    };
  }

  // --- session -----------------------------------------------------------------------------------

  function resetView() {
    Object.keys(watchers).forEach(function (id) {
      window.clearTimeout(watchers[id].timer);
      if (watchers[id].source) { watchers[id].source.close(); }
    });
    watchers = {};
    early = {};
    list.textContent = "";
    staffShown = {};
    progress.textContent = "";
    clearError();
  }

  function renderHistory(turns) {
    (turns || []).forEach(function (turn) {
      addUser(turn.redacted_text, false).setAttribute("data-user-turn", turn.turn_id);
      if (turn.status === "running") { watch(turn.turn_id); } else { renderTurn(turn); }
    });
  }

  function loadSession() {
    return api("GET", "conversations/current/").then(function (result) {
      setOffline(false);
      resetView();
      if (result.ok) {
        session = result.data;
        renderHistory(result.data.turns);
        if (consented()) { hideNotice(); } else { showNotice(); }
        connectSocket();
        syncStaff();
      } else {
        session = null;
        showNotice();
      }
    }).catch(function () { setOffline(true); });
  }

  function ensureConversation() {
    if (session) { return Promise.resolve(session); }
    return api("POST", "conversations/", { language: C.language }).then(function (result) {
      if (!result.ok) { throw new Error("create"); }
      session = { conversation_id: result.data.conversation_id, consent_version: null, notice_version: C.notice_version };
      return session;
    });
  }

  function accept() {
    ensureConversation().then(function (current) {
      return api("POST", "conversations/" + current.conversation_id + "/consent", { version: C.notice_version });
    }).then(function (result) {
      if (!result.ok) { throw new Error("consent"); }
      session.consent_version = result.data.consent_version;
      hideNotice();
      clearError();
      connectSocket();
      input.focus();
    }).catch(function () { showError(navigator.onLine ? t("err.generic") : t("err.network")); });
  }

  function errorText(result) {
    var code = result.data && result.data.error && result.data.error.code;
    if (result.status === 429) { return t("err.rate_limited"); }
    if (code && Object.prototype.hasOwnProperty.call(T, "err." + code)) { return T["err." + code]; }
    return t("err.generic");
  }

  function send() {
    var text = input.value;
    clearError();
    if (!text.trim()) { showError(t("err.empty_message")); return; }
    if (text.length > MAX_CHARS) { showError(t("err.message_too_long")); return; }
    if (!consented()) { showNotice(); showError(t("err.notice")); return; }
    if (!navigator.onLine) { showError(t("err.network")); return; }
    if (sending) { return; }
    if (!pending || pending.text !== text) { pending = { text: text, id: newId() }; }
    sending = true;
    sendButton.disabled = true;
    progress.textContent = t("sending");
    var bubble = addUser(text, true);
    var body = { text: text, client_message_id: pending.id, language: C.language, wait: false };
    api("POST", "conversations/" + session.conversation_id + "/turns/", body).then(function (result) {
      if (result.status === 200 || result.status === 201 || result.status === 202) {
        pending = null;
        if (input.value === text) { input.value = ""; }
        bubble.classList.remove("pending");
        if (result.data.status === "running") { watch(result.data.turn_id); } else { finish(null, result.data); }
        return;
      }
      // Refused: the message was not recorded, so it stays in the box to send again.
      bubble.remove();
      updateProgress();
      if (result.status === 409 && !(result.data.error && result.data.error.code === "idempotency_conflict")) { pending = null; }
      if (result.data && result.data.error && result.data.error.code === "consent_required") { showNotice(); }
      showError(errorText(result));
    }).catch(function () {
      bubble.remove();
      updateProgress();
      showError(t("err.network"));
    }).then(function () {
      sending = false;
      sendButton.disabled = false;
    });
  }

  function restart() {
    if (!session) { resetView(); showNotice(); return; }
    api("POST", "conversations/current/restart").then(function (result) {
      if (!result.ok) { throw new Error("restart"); }
      closeSocket();
      resetView();
      session = result.data;
      if (consented()) { hideNotice(); } else { showNotice(); }
      connectSocket();
      announce(t("restarted"));
      input.focus();
    }).catch(function () { showError(t("err.generic")); });
  }

  function remove() {
    if (!session || !window.confirm(t("confirm_delete"))) { return; }
    api("DELETE", "conversations/" + session.conversation_id + "/").then(function (result) {
      if (!result.ok && result.status !== 404) { throw new Error("delete"); }
      var deleted = result.data && result.data.deleted ? result.data.deleted.conversations : 0;
      var said = t("deleted").replace("{n}", String(deleted || 0));
      closeSocket();
      resetView();
      session = null;
      pending = null;
      showNotice();
      announce(said);
      formError.textContent = said;
    }).catch(function () { showError(t("err.generic")); });
  }

  // --- wiring ------------------------------------------------------------------------------------

  form.addEventListener("submit", function (event) { event.preventDefault(); send(); });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) { event.preventDefault(); send(); }
  });
  $("accept").addEventListener("click", accept);
  $("restart").addEventListener("click", restart);
  $("delete").addEventListener("click", remove);
  $("show-notice").addEventListener("click", function () { showNotice(); notice.scrollIntoView(); $("accept").focus(); });
  window.addEventListener("offline", function () { setOffline(true); });
  window.addEventListener("online", function () {
    setOffline(false);
    announce(t("online"));
    if (session) {
      connectSocket();
      Object.keys(watchers).forEach(function (id) { fetchTurn(watchers[id]); });
    } else {
      loadSession();
    }
  });

  if ("serviceWorker" in navigator && C.service_worker) {
    navigator.serviceWorker.register(C.service_worker).catch(function () { /* the page works without it */ });
  }
  if (!navigator.onLine) { setOffline(true); }
  loadSession();
  scheduleStaffPoll();
}());
