// The release plan page's Print button (a static file: the admin's CSP allows no inline handlers).
document.addEventListener("click", function (event) {
  var button = event.target.closest ? event.target.closest("[data-print]") : null;
  if (button) { window.print(); }
});
