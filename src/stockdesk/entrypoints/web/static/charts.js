/*
 * ChartSpec JSON -> Apache ECharts option, drawn on a canvas (the same specs matplotlib draws into files).
 *
 * Plain ES2017, no modules: include after vendor/echarts.min.js. Usage:
 *   <div class="chart" data-spec='{"id": ..., "panels": [...]}'></div>
 * `StockdeskCharts.renderAll(root)` draws every [data-spec] element not drawn yet; it runs on
 * DOMContentLoaded and after every htmx swap settles. A drawn element gets data-rendered="1" and
 * data-points (non-null series values drawn), role="img" and an aria-label (title + caption); the
 * caption goes into a <p class="chart-caption"> right after it unless the page already put one there.
 */
(function () {
  "use strict";

  // Same colours and dashes as shared/charts/render.py (PALETTE, LEVELS), so both renderers agree.
  var PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#7f7f7f", "#bcbd22"];
  var LEVELS = {
    entry: ["#1565c0", "dashed"],
    stop: ["#c62828", "dashed"],
    target: ["#2e7d32", "dashed"],
    median: ["#455a64", "dotted"],
    zero: ["#424242", "solid"],
    reference: ["#757575", [8, 3, 2, 3]],
  };
  var BAND_COLOR = "#90a4ae";
  var REGION_OPACITY = 0.1; // render.py REGION_ALPHA
  var POINT_COLOR = "#d62728";
  var TOP = 66; // title + legend
  var PANEL_PX = 190; // one unit of ChartPanel.height
  var GAP = 36; // between stacked panels: room for the upper panel's lowest y label
  var LEFT = 64;
  var RIGHT = 24;
  var RIGHT_WITH_AXIS = 64;
  var charts = new Set();

  function reducedMotion() {
    return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  }

  function locale() {
    return document.documentElement.lang || undefined;
  }

  function formatNumber(value, digits) {
    if (value === null || value === undefined || isNaN(value)) return "–";
    var max = digits !== undefined ? digits : Math.abs(value) >= 1 ? 2 : 4;
    var min = digits !== undefined ? digits : 0;
    return Number(value).toLocaleString(locale(), { minimumFractionDigits: min, maximumFractionDigits: max });
  }

  function axisNumber(value) {
    if (Math.abs(value) >= 1e4) {
      return new Intl.NumberFormat(locale(), { notation: "compact", maximumFractionDigits: 1 }).format(value);
    }
    return formatNumber(value);
  }

  function countPoints(spec) {
    var n = 0;
    spec.panels.forEach(function (panel) {
      (panel.series || []).forEach(function (s) {
        s.values.forEach(function (v) {
          if (v !== null && v !== undefined) n += 1;
        });
      });
    });
    return n;
  }

  function paddedBound(lo, hi, side) {
    // a round number a little beyond the data and the levels, so levels never sit on the frame
    var span = hi - lo || Math.abs(hi) || 1;
    var step = Math.pow(10, Math.floor(Math.log10(span))) / 2;
    return side === "min" ? Math.floor((lo - span * 0.05) / step) * step : Math.ceil((hi + span * 0.05) / step) * step;
  }

  function primaryAxis(panel, p, axisIndex, hasRight) {
    var needsZero = (panel.series || []).some(function (s) {
      return !s.secondary && (s.kind === "bar" || s.kind === "area");
    });
    var marks = (panel.lines || []).map(function (l) { return l.value; })
      .concat((panel.points || []).map(function (pt) { return pt.y; }));
    var axis = {
      type: "value", gridIndex: p, name: panel.y_label || "", nameLocation: "middle", nameGap: 46,
      scale: !needsZero, axisLabel: { formatter: axisNumber }, splitLine: { lineStyle: { opacity: 0.5 } },
    };
    if (marks.length) {
      var lo = Math.min.apply(null, marks);
      var hi = Math.max.apply(null, marks);
      axis.min = function (e) {
        return paddedBound(Math.min(e.min, lo, needsZero ? 0 : Infinity), Math.max(e.max, hi), "min");
      };
      axis.max = function (e) {
        return paddedBound(Math.min(e.min, lo, needsZero ? 0 : Infinity), Math.max(e.max, hi), "max");
      };
    }
    if (panel.y_min !== null && panel.y_min !== undefined) axis.min = panel.y_min;
    if (panel.y_max !== null && panel.y_max !== undefined) axis.max = panel.y_max;
    axis.id = "y" + axisIndex;
    axis.splitNumber = hasRight ? 4 : 5;
    return axis;
  }

  function secondaryAxis(panel, p, axisIndex) {
    var needsZero = panel.series.some(function (s) {
      return s.secondary && (s.kind === "bar" || s.kind === "area");
    });
    return {
      id: "y" + axisIndex, type: "value", gridIndex: p, position: "right", name: panel.y2_label || "",
      nameLocation: "middle", nameGap: 46, scale: !needsZero, splitNumber: 4,
      axisLabel: { formatter: axisNumber }, splitLine: { show: false },
    };
  }

  function dataSeries(spec, s, n, p, yIndex, color) {
    var out = {
      id: "s" + p + "-" + n, name: s.name, data: s.values.slice(), xAxisIndex: p, yAxisIndex: yIndex,
      itemStyle: { color: color }, emphasis: { focus: "none" },
    };
    if (s.kind === "bar") {
      out.type = "bar";
      out.barMaxWidth = 28;
      if (s.stack) out.stack = "p" + p + ":" + s.stack;
    } else if (s.kind === "scatter") {
      out.type = "scatter";
      out.symbolSize = 7;
    } else {
      out.type = "line";
      out.connectNulls = false; // None is a gap
      out.showSymbol = spec.x_kind === "category";
      out.symbolSize = 5;
      out.lineStyle = { color: color, width: s.width || 1.3 };
      if (s.kind === "area") out.areaStyle = { color: color, opacity: 0.25, origin: 0 };
    }
    return out;
  }

  function bandSeries(band, b, p, n) {
    // stacked pair: the invisible lower boundary, then (upper - lower) filled on top of it
    var key = "band" + p + "-" + b;
    var diff = band.upper.map(function (u, i) {
      var l = band.lower[i];
      return u === null || l === null || u === undefined || l === undefined ? null : u - l;
    });
    var common = {
      type: "line", xAxisIndex: p, yAxisIndex: n, stack: key, stackStrategy: "all", symbol: "none",
      connectNulls: false, lineStyle: { opacity: 0 }, emphasis: { disabled: true }, z: 1,
    };
    return [
      Object.assign({}, common, { id: "__" + key + "-lower", name: "__" + key + "-lower", data: band.lower.slice() }),
      Object.assign({}, common, {
        id: "__" + key, name: band.label, data: diff, itemStyle: { color: band.color || BAND_COLOR },
        areaStyle: { color: band.color || BAND_COLOR, opacity: 0.18 },
      }),
    ];
  }

  function regionAreas(panel) {
    // shaded x spans (markArea pairs on category values), the label at the top of each
    return (panel.regions || []).map(function (region, n) {
      var color = region.color || PALETTE[n % PALETTE.length];
      return [
        {
          name: region.label || "", xAxis: region.start, itemStyle: { color: color, opacity: REGION_OPACITY },
          label: { show: !!region.label, position: "insideTop", color: color, fontSize: 11 },
        },
        { xAxis: region.end },
      ];
    });
  }

  function marksSeries(spec, panel, p, yIndex) {
    // an empty series on the panel's left axis that carries its shaded regions, reference levels and points
    var positions = {};
    spec.x.forEach(function (x, i) { positions[x] = i; });
    return {
      id: "__marks" + p, name: "__marks" + p, type: "line", xAxisIndex: p, yAxisIndex: yIndex, data: [],
      symbol: "none", silent: true, z: 4,
      markLine: {
        symbol: ["none", "none"], silent: false, animation: false,
        data: (panel.lines || []).map(function (line) {
          var level = LEVELS[line.style] || LEVELS.reference;
          return {
            name: line.label, yAxis: line.value,
            lineStyle: { color: level[0], type: level[1], width: line.style === "zero" ? 1.0 : 1.3 },
            label: {
              show: line.style !== "zero", position: "insideEndTop", color: level[0],
              formatter: line.label + " " + formatNumber(line.value, 2),
            },
          };
        }),
      },
      markArea: { silent: true, animation: false, data: regionAreas(panel) },
      markPoint: {
        animation: false,
        data: (panel.points || []).map(function (pt) {
          return {
            name: pt.label, coord: [positions[pt.x], pt.y], value: pt.y, symbol: "circle", symbolSize: 11,
            itemStyle: { color: "#ffffff", borderColor: POINT_COLOR, borderWidth: 2 },
            // the label on the side with room: left of points in the right half of the chart
            label: {
              show: true, position: positions[pt.x] > spec.x.length / 2 ? "left" : "right", color: POINT_COLOR,
              formatter: pt.label,
            },
          };
        }),
      },
    };
  }

  function tooltipFormatter(bands) {
    return function (params) {
      var list = Array.isArray(params) ? params : [params];
      if (!list.length) return "";
      var rows = [];
      list.forEach(function (item) {
        var id = item.seriesId || "";
        if (bands[id]) {
          var i = item.dataIndex;
          var band = bands[id];
          if (band.lower[i] === null || band.upper[i] === null) return;
          rows.push(item.marker + item.seriesName + ": " + formatNumber(band.lower[i]) + " – " + formatNumber(band.upper[i]));
          return;
        }
        if (id.indexOf("__") === 0) return;
        var value = Array.isArray(item.value) ? item.value[item.value.length - 1] : item.value;
        if (value === null || value === undefined || value === "-") return;
        rows.push(item.marker + item.seriesName + ": <b>" + formatNumber(value) + "</b>");
      });
      return [escapeHtml(list[0].axisValueLabel || list[0].name || "")].concat(rows).join("<br>");
    };
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function layout(spec) {
    var date = spec.x_kind === "date";
    var rotate = spec.x_kind === "category" && spec.x.length > 8;
    var bottom = date ? 74 : rotate ? 70 : 40;
    var tops = [];
    var y = TOP;
    spec.panels.forEach(function (panel, p) {
      var h = Math.round(PANEL_PX * (panel.height || 1));
      tops.push([y, h]);
      y += h + (p < spec.panels.length - 1 ? GAP : 0);
    });
    return { panels: tops, height: y + bottom, rotate: rotate, date: date };
  }

  /** The whole ECharts option of one spec; `width` is the element's width in pixels (title truncation). */
  function buildOption(spec, width) {
    var box = layout(spec);
    var colors = PALETTE.concat(PALETTE, PALETTE, PALETTE);
    var last = spec.panels.length - 1;
    var hasBars = spec.panels.some(function (panel) {
      return (panel.series || []).some(function (s) { return s.kind === "bar"; });
    });
    var option = {
      animation: !reducedMotion(),
      title: {
        text: spec.title, left: 8, top: 4,
        textStyle: { fontSize: 14, fontWeight: "bold", width: Math.max(width - 16, 80), overflow: "truncate" },
      },
      legend: { type: "scroll", top: 32, left: 8, right: 8, data: [], itemHeight: 10, textStyle: { fontSize: 11 } },
      tooltip: {
        trigger: "axis", confine: true, className: "chart-tooltip", axisPointer: { type: "line" },
        order: "seriesAsc",
      },
      axisPointer: { link: [{ xAxisIndex: "all" }], label: { show: false } },
      grid: [], xAxis: [], yAxis: [], series: [],
    };
    var bands = {};
    var yCount = 0;
    spec.panels.forEach(function (panel, p) {
      var series = panel.series || [];
      var hasRight = series.some(function (s) { return s.secondary; });
      option.grid.push({
        id: "g" + p, left: LEFT, right: hasRight ? RIGHT_WITH_AXIS : RIGHT, top: box.panels[p][0], height: box.panels[p][1],
      });
      option.xAxis.push({
        id: "x" + p, type: "category", gridIndex: p, data: spec.x.slice(), boundaryGap: hasBars || !box.date,
        axisLabel: { show: p === last, hideOverlap: true, rotate: box.rotate ? 30 : 0 },
        axisTick: { show: p === last, alignWithLabel: true },
      });
      var left = yCount;
      option.yAxis.push(primaryAxis(panel, p, left, hasRight));
      yCount += 1;
      var right = left;
      if (hasRight) {
        right = yCount;
        option.yAxis.push(secondaryAxis(panel, p, right));
        yCount += 1;
      }
      (panel.bands || []).forEach(function (band, b) {
        var pair = bandSeries(band, b, p, left);
        bands[pair[1].id] = band;
        option.series.push(pair[0], pair[1]);
        option.legend.data.push({ name: band.label, icon: "rect" });
      });
      series.forEach(function (s, n) {
        var color = s.color || colors.shift();
        option.series.push(dataSeries(spec, s, n, p, s.secondary ? right : left, color));
        option.legend.data.push(s.name);
      });
      if ((panel.lines || []).length || (panel.points || []).length || (panel.regions || []).length) {
        option.series.push(marksSeries(spec, panel, p, left));
      }
    });
    option.tooltip.formatter = tooltipFormatter(bands);
    if (box.date) {
      var axes = spec.panels.map(function (_, p) { return p; });
      option.dataZoom = [
        { id: "zoom-inside", type: "inside", xAxisIndex: axes },
        { id: "zoom-slider", type: "slider", xAxisIndex: axes, bottom: 8, height: 20, labelFormatter: null },
      ];
    }
    return { option: option, height: box.height };
  }

  function showCaption(el, spec) {
    var next = el.nextElementSibling;
    if (!spec.caption || (next && next.classList.contains("chart-caption"))) return;
    var caption = document.createElement("p");
    caption.className = "chart-caption";
    caption.textContent = spec.caption;
    el.insertAdjacentElement("afterend", caption);
  }

  function fail(el, message, error) {
    el.dataset.rendered = "error";
    el.textContent = message;
    el.classList.add("chart-error");
    if (error) console.error("stockdesk chart:", message, error);
  }

  /** Draw one spec (an object or its JSON text) into `el`; returns the ECharts instance (or null). */
  function render(el, spec) {
    if (typeof window.echarts === "undefined") {
      // the page's banner already says the front-end files are missing
      console.warn("stockdesk chart: ECharts is not loaded");
      fail(el, "Chart library missing: run `make web-assets`.", null);
      return null;
    }
    try {
      if (typeof spec === "string") spec = JSON.parse(spec);
      var existing = window.echarts.getInstanceByDom(el);
      if (existing) existing.dispose();
      var built = buildOption(spec, el.clientWidth || 600);
      el.style.height = built.height + "px";
      var chart = window.echarts.init(el, null, { renderer: "canvas" });
      chart.setOption(built.option);
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", spec.caption ? spec.title + ". " + spec.caption : spec.title);
      el.dataset.points = String(countPoints(spec));
      el.dataset.chartId = spec.id;
      showCaption(el, spec);
      watch(el, chart);
      el.dataset.rendered = "1";
      return chart;
    } catch (error) {
      fail(el, "This chart could not be drawn.", error);
      return null;
    }
  }

  function resize(el, chart) {
    if (chart.isDisposed()) return;
    chart.setOption({ title: { textStyle: { width: Math.max(el.clientWidth - 16, 80) } } });
    chart.resize();
  }

  function watch(el, chart) {
    charts.add(el);
    if (typeof ResizeObserver === "undefined") return;
    if (el.stockdeskObserver) el.stockdeskObserver.disconnect(); // drawn again: one observer per element
    var pending = false;
    var observer = new ResizeObserver(function () {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () { // outside the observer callback: no resize loop
        pending = false;
        if (!el.isConnected) return observer.disconnect();
        resize(el, chart);
      });
    });
    observer.observe(el);
    el.stockdeskObserver = observer;
  }

  function forget() {
    // elements swapped out by htmx: free their ECharts instances
    charts.forEach(function (el) {
      if (el.isConnected) return;
      var chart = window.echarts && window.echarts.getInstanceByDom(el);
      if (chart) chart.dispose();
      charts.delete(el);
    });
  }

  /** Draw every [data-spec] element under `root` (default: the document) that is not drawn yet. */
  function renderAll(root) {
    forget();
    var scope = root && root.querySelectorAll ? root : document;
    var found = Array.prototype.slice.call(scope.querySelectorAll("[data-spec]"));
    if (scope.matches && scope.matches("[data-spec]")) found.unshift(scope);
    found.forEach(function (el) {
      if (!el.dataset.rendered) render(el, el.getAttribute("data-spec"));
    });
  }

  window.StockdeskCharts = { render: render, renderAll: renderAll, buildOption: buildOption };

  if (typeof ResizeObserver === "undefined") {
    window.addEventListener("resize", function () {
      charts.forEach(function (el) {
        var chart = window.echarts && window.echarts.getInstanceByDom(el);
        if (chart) resize(el, chart);
      });
    });
  }
  document.addEventListener("htmx:afterSettle", function () {
    renderAll(document); // the swapped-in fragment may be outside the event target (outerHTML swaps)
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { renderAll(document); });
  } else {
    renderAll(document);
  }
})();
