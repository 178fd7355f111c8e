// The checks scripts/screenshots.py runs in each page (see its docstring): returns the findings.
() => {
  const hidden = el => el.closest('code, pre, script, style, [translate="no"], [data-user], .visually-hidden');
  const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const found = {snake: [], unitless: [], overlaps: []};
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || hidden(el) || !visible(el)) continue;
    const words = node.textContent.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g);
    if (words) found.snake.push(...words);
  }
  document.querySelectorAll('td, dd, .figure-value').forEach(el => {
    if (hidden(el) || !visible(el)) return;
    const text = el.textContent.trim();
    if (/^[-+−]?\d[\d,]*\.\d+$/.test(text)) found.unitless.push(text);
  });
  const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
  const cross = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  document.querySelectorAll('.chart').forEach((chart, index) => {
    const frame = chart.getBoundingClientRect();
    const texts = Array.from(chart.querySelectorAll('svg text')).filter(t => t.textContent.trim() && visible(t));
    const boxes = texts.map(t => ({text: t.textContent.trim(), box: t.getBoundingClientRect()}));
    boxes.forEach((a, i) => {
      if (!inside(a.box, frame)) found.overlaps.push(`chart ${index + 1}: "${a.text}" leaves the frame`);
      boxes.slice(i + 1).forEach(b => {
        if (cross(a.box, b.box)) found.overlaps.push(`chart ${index + 1}: "${a.text}" over "${b.text}"`);
      });
    });
  });
  found.snake = Array.from(new Set(found.snake));
  found.unitless = Array.from(new Set(found.unitless));
  return found;
}
