// Starts Swagger UI on the app's OpenAPI document (/api/v1/docs). A file, not an inline script, so
// the page keeps the UI's content security policy; no validator badge (it would call a remote site).
window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapi,
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
