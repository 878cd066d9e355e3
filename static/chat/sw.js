/* Pathways service worker: keeps the chat shell so the page opens offline and says so.
 * Served from /sw.js (scope "/"); the server fills in the asset list and cache version.
 * The API is never cached: conversations live on the server, not in this cache. */
"use strict";

var CACHE = "pathways-shell-__CACHE_VERSION__";
var SHELL = ["/", __SHELL_ASSETS__];

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll(SHELL); }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (keys) {
      return Promise.all(keys.filter(function (key) { return key.indexOf("pathways-shell-") === 0 && key !== CACHE; }).map(function (key) { return caches.delete(key); }));
    }).then(function () { return self.clients.claim(); })
  );
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") { return; }
  var url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.indexOf("/api/") === 0 || url.pathname.indexOf("/ws/") === 0) { return; }

  if (request.mode === "navigate" && url.pathname === "/") {
    // Network first, so language and notice changes show at once; the cached shell when offline.
    event.respondWith(
      fetch(request).then(function (response) {
        if (response.ok && !url.search) {
          var copy = response.clone();
          caches.open(CACHE).then(function (cache) { cache.put("/", copy); });
        }
        return response;
      }).catch(function () { return caches.match("/"); })
    );
    return;
  }

  if (url.pathname.indexOf("/static/") === 0) {
    event.respondWith(
      caches.match(request).then(function (hit) { return hit || fetch(request); })
    );
  }
});
