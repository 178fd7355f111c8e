// The text checks scripts/screenshots.py runs in each page (see its docstring): raw keys, unitless decimals.
() => {
  const hidden = el => el.closest('code, pre, script, style, [translate="no"], [data-user], .visually-hidden');
  const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const found = {snake: [], unitless: []};
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || hidden(el) || !visible(el)) continue;
    const words = node.textContent.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g);
    if (words) found.snake.push(...words);
  }
  document.querySelectorAll('td, dd, .figure-value').forEach(el => {
    if (hidden(el) || !visible(el) || el.querySelector('[data-unit="none"]') || el.closest('[data-unit="none"]')) return;
    const text = el.textContent.trim();
    if (/^[-+−]?\d[\d,]*\.\d+$/.test(text)) found.unitless.push(text);
  });
  found.snake = Array.from(new Set(found.snake));
  found.unitless = Array.from(new Set(found.unitless));
  return found;
}
