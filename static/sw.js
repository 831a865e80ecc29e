// libra-studio's service worker: the app shell (index.html, the js, the wasm, the css, the
// manifest and icons) is cached on the first visit, so that the app opens and computes with no
// network. scripts/bundle writes VERSION and ASSETS at build time; a new release has a new
// VERSION, so the browser installs the new worker on the next online visit, which caches the
// new shell and deletes the old one.
const VERSION = "__VERSION__";
const ASSETS = __ASSETS__;
const CACHE = "libra-studio-" + VERSION;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(ASSETS))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(
        keys.filter((k) => k.startsWith("libra-studio-") && k !== CACHE).map((k) => caches.delete(k)),
      ))
      .then(() => self.clients.claim()),
  );
});

// The page itself (a navigation): the network first, so an online visit always gets the newest
// release, and the cached copy when the network fails. Everything else (file names carry a hash
// of their content): the cache first.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) {
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(
      fetch(request).catch(() =>
        caches.open(CACHE).then((cache) => cache.match("./index.html")).then((r) => r || Response.error()),
      ),
    );
    return;
  }
  event.respondWith(
    caches.open(CACHE).then((cache) =>
      cache.match(request, { ignoreSearch: true }).then((hit) => hit || fetch(request)),
    ),
  );
});
