/*
 * ChartSpec JSON -> Apache ECharts option, drawn on a canvas (the same specs matplotlib draws into files).
 *
 * Plain ES2017, no modules: include after vendor/echarts.min.js. Usage:
 *   <div class="chart" data-spec='{"id": ..., "panels": [...]}'></div>
 * `StockdeskCharts.renderAll(root)` draws every [data-spec] element not drawn yet; it runs on
 * DOMContentLoaded and after every htmx swap settles. A drawn element gets data-rendered="1" and
 * data-points (non-null series values drawn), role="img" and an aria-label (title + caption); the
 * caption goes into a <p class="chart-caption"> right after it unless the page already put one there.
 *
 * Labels never collide (shared/charts/labels.py says the rule and why it runs here, after layout):
 * the spec's edge_labels (every level but zero lines, every point on the last x) go in the right
 * margin, wrapped to at most MARGIN_SHARE of the width, and after each layout (`place`, on ECharts'
 * "finished") they are moved level with their values and apart by `spread`, a line-for-line port of
 * labels.py's (tests/browser/test_chart_labels.py runs both on the same cases). The element gets
 * data-labels="placed" once its labels stand where the rule puts them.
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
  var RIGHT = 24; // right margin of a chart with neither a right-hand axis nor margin labels
  var AXIS_FONT = 12; // ECharts' axis label and axis name size
  var LABEL_MARGIN = 8; // ECharts' axisLabel.margin: from the axis line to its labels
  var OUTER = 5; // ECharts' default outer bounds: what it keeps inside the canvas
  // labels.py: LABEL_GAP_PX, COLUMN_PAD_PX, MARGIN_SHARE, LABEL_FONT_PX
  var LABEL_GAP = 3;
  var COLUMN_PAD = 9;
  var MARGIN_SHARE = 0.25;
  var LABEL_FONT = 11;
  var LABEL_LINE = 14; // line height of a margin label
  var POINT_RADIUS = 5.5; // half the highlighted point's symbolSize
  var POINT_BORDER = 2;
  var charts = new Set();
  var measurer = null;

  /** labels.py `_block_top`: a block of stacked labels as close to its members' values as it can be. */
  function blockTop(members, anchors, offsets, height, low, high) {
    var total = 0;
    members.forEach(function (i) { total += anchors[i] - offsets[i]; });
    return Math.max(Math.min(total / members.length, high - height), low);
  }

  /** labels.py `spread`: centres at least `gap` apart within [low, high], as near their anchors as can be. */
  function spread(anchors, heights, low, high, gap) {
    var order = anchors.map(function (_, i) { return i; });
    order.sort(function (a, b) { return anchors[a] - anchors[b] || a - b; });
    var offsets = anchors.map(function () { return 0; });
    var blocks = []; // [members, top, height]
    order.forEach(function (i) {
      offsets[i] = heights[i] / 2;
      var members = [i];
      var height = heights[i];
      var top = blockTop(members, anchors, offsets, height, low, high);
      while (blocks.length && blocks[blocks.length - 1][1] + blocks[blocks.length - 1][2] + gap > top) {
        var before = blocks.pop();
        members.forEach(function (j) { offsets[j] += before[2] + gap; });
        members = before[0].concat(members);
        height = before[2] + gap + height;
        top = blockTop(members, anchors, offsets, height, low, high);
      }
      blocks.push([members, top, height]);
    });
    var centres = anchors.map(function () { return 0; });
    blocks.forEach(function (block) {
      block[0].forEach(function (i) { centres[i] = block[1] + offsets[i]; });
    });
    return centres;
  }

  function greedy(words, width, measure) {
    var lines = [];
    words.forEach(function (word) {
      var candidate = lines.length ? lines[lines.length - 1] + " " + word : word;
      if (lines.length && measure(candidate) <= width) lines[lines.length - 1] = candidate;
      else lines.push(word);
    });
    return lines;
  }

  /** labels.py `wrap`: as few lines no wider than `maxWidth` as can be, broken at spaces, the narrowest. */
  function wrap(text, maxWidth, measure) {
    var words = String(text).split(/\s+/).filter(Boolean);
    if (!words.length) return [String(text)];
    var known = new Map();
    var width = function (part) {
      if (!known.has(part)) known.set(part, measure(part));
      return known.get(part);
    };
    var fewest = greedy(words, maxWidth, width).length;
    var spans = [];
    for (var i = 0; i < words.length; i += 1) {
      for (var j = i + 1; j <= words.length; j += 1) spans.push(width(words.slice(i, j).join(" ")));
    }
    spans = Array.from(new Set(spans)).sort(function (a, b) { return a - b; });
    for (var k = 0; k < spans.length; k += 1) {
      var lines = greedy(words, spans[k], width);
      if (lines.length <= fewest) return lines;
    }
    return greedy(words, maxWidth, width);
  }

  function textWidth(text, size) {
    if (!measurer) measurer = document.createElement("canvas").getContext("2d");
    measurer.font = size + "px sans-serif"; // ECharts' default family
    return measurer.measureText(text).width;
  }

  function labelWidth(text) {
    return textWidth(text, LABEL_FONT);
  }

  function hasRightAxis(panel) {
    return (panel.series || []).some(function (s) { return s.secondary; });
  }

  function axisValues(panel, secondary) {
    // what one side's axis has to show: its series, and on the left the levels, points, bands and bounds
    var values = [];
    var add = function (v) { if (v !== null && v !== undefined && isFinite(v)) values.push(v); };
    (panel.series || []).forEach(function (s) {
      if (!!s.secondary === secondary) s.values.forEach(add);
    });
    if (!secondary) {
      (panel.lines || []).forEach(function (l) { add(l.value); });
      (panel.points || []).forEach(function (pt) { add(pt.y); });
      (panel.bands || []).forEach(function (b) { b.lower.forEach(add); b.upper.forEach(add); });
      add(panel.y_min);
      add(panel.y_max);
    }
    return values;
  }

  function tickTextWidth(values) {
    // the widest tick label an axis over `values` is likely to print: its padded ends, in its precision
    if (!values.length) return textWidth("0", AXIS_FONT);
    var lo = values.reduce(function (a, b) { return Math.min(a, b); });
    var hi = values.reduce(function (a, b) { return Math.max(a, b); });
    var span = hi - lo || Math.abs(hi) || 1;
    var digits = Math.max(0, Math.min(1 - Math.floor(Math.log10(span / 5)), 4));
    return [paddedBound(lo, hi, "min"), paddedBound(lo, hi, "max")].reduce(function (widest, v) {
      var text = Math.abs(v) >= 1e4 ? axisNumber(v) : formatNumber(Math.trunc(v), 0) + (digits ? "." + "0".repeat(digits) : "");
      return Math.max(widest, textWidth((v < 0 && Math.trunc(v) === 0 ? "-" : "") + text, AXIS_FONT));
    }, 0);
  }

  /**
   * Room for one side's axis (tick labels, then its rotated title past them) in every panel, so axis
   * titles stay inside the chart and stacked panels share one x scale: {gap: the title's nameGap,
   * room: from the chart's edge to the plot}; null when no panel has an axis on that side.
   */
  function axisRoom(spec, secondary) {
    var widest = -1;
    var named = false;
    spec.panels.forEach(function (panel) {
      if (secondary && !hasRightAxis(panel)) return;
      var values = axisValues(panel, secondary);
      widest = Math.max(widest, tickTextWidth(values));
      named = named || !!(secondary ? panel.y2_label : panel.y_label);
    });
    if (widest < 0) return null;
    var gap = Math.ceil(widest) + LABEL_MARGIN + 6; // ECharts' nameGap: from the axis to the title's near edge
    return { gap: gap, room: (named ? gap + AXIS_FONT + 3 : Math.ceil(widest) + LABEL_MARGIN) + OUTER + 2 };
  }

  /**
   * The margin labels of every panel for a chart `width` px wide: their wrapped text, where their column
   * starts past the plot (past the right-hand axis in a panel that has one), and the right margin all
   * panels share (stacked panels keep one x scale): what the most demanding panel needs.
   */
  function edgeLayout(spec, width, rightAxis) {
    var cap = Math.max(width * MARGIN_SHARE, 48);
    var right = RIGHT;
    var columns = [];
    var texts = spec.panels.map(function (panel, p) {
      var axis = rightAxis && hasRightAxis(panel) ? rightAxis.room : 0;
      var widest = 0;
      var lines = ((spec.edge_labels || [])[p] || []).map(function (label) {
        var wrapped = wrap(label.text, cap, labelWidth);
        wrapped.forEach(function (line) { widest = Math.max(widest, labelWidth(line)); });
        return wrapped.join("\n");
      });
      columns.push(axis);
      right = Math.max(right, widest ? axis + COLUMN_PAD + Math.ceil(widest) + OUTER : axis);
      return lines;
    });
    return { texts: texts, right: right, columns: columns };
  }

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

  function primaryAxis(panel, p, axisIndex, hasRight, gap) {
    var needsZero = (panel.series || []).some(function (s) {
      return !s.secondary && (s.kind === "bar" || s.kind === "area");
    });
    var marks = (panel.lines || []).map(function (l) { return l.value; })
      .concat((panel.points || []).map(function (pt) { return pt.y; }));
    var axis = {
      type: "value", gridIndex: p, name: panel.y_label || "", nameLocation: "middle", nameGap: gap, nameMoveOverlap: false,
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

  function secondaryAxis(panel, p, axisIndex, gap) {
    var needsZero = panel.series.some(function (s) {
      return s.secondary && (s.kind === "bar" || s.kind === "area");
    });
    return {
      id: "y" + axisIndex, type: "value", gridIndex: p, position: "right", name: panel.y2_label || "",
      nameLocation: "middle", nameGap: gap, nameMoveOverlap: false, scale: !needsZero, splitNumber: 4,
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

  /** The label (text and offset) of margin label `n` of panel `p`, from the chart's label state. */
  function edgeLabelStyle(state, p, n, base) {
    var offset = (state.offsets[p] || [])[n] || [0, 0];
    return Object.assign(base, {
      show: true, formatter: state.texts[p][n], fontSize: LABEL_FONT, lineHeight: LABEL_LINE, offset: offset,
    });
  }

  function edgeIndex(spec, p, kind) {
    // line or point index -> position among the panel's margin labels
    var found = {};
    ((spec.edge_labels || [])[p] || []).forEach(function (label, n) {
      if (label.kind === kind) found[label.index] = n;
    });
    return found;
  }

  function markLineData(spec, panel, p, state) {
    var named = edgeIndex(spec, p, "line");
    return (panel.lines || []).map(function (line, i) {
      var level = LEVELS[line.style] || LEVELS.reference;
      var label = { show: false, color: level[0] };
      if (named[i] !== undefined) {
        // in the right margin, never on the plot (labels.py)
        label = edgeLabelStyle(state, p, named[i], { position: "end", distance: COLUMN_PAD, color: level[0] });
      }
      return {
        name: line.label, yAxis: line.value,
        lineStyle: { color: level[0], type: level[1], width: line.style === "zero" ? 1.0 : 1.3 },
        label: label,
      };
    });
  }

  function markPointData(spec, panel, p, state) {
    var positions = {};
    spec.x.forEach(function (x, i) { positions[x] = i; });
    var named = edgeIndex(spec, p, "point");
    return (panel.points || []).map(function (pt, i) {
      // a point on the last x is named in the margin; elsewhere, beside it on the side with room
      var label = named[i] !== undefined
        ? edgeLabelStyle(state, p, named[i], { position: "right", distance: 0, color: POINT_COLOR })
        : {
          show: true, position: positions[pt.x] > spec.x.length / 2 ? "left" : "right", color: POINT_COLOR,
          formatter: pt.label,
        };
      return {
        name: pt.label, coord: [positions[pt.x], pt.y], value: pt.y, symbol: "circle", symbolSize: 2 * POINT_RADIUS,
        itemStyle: { color: "#ffffff", borderColor: POINT_COLOR, borderWidth: POINT_BORDER },
        label: label,
      };
    });
  }

  function marksSeries(spec, panel, p, yIndex, state) {
    // an empty series on the panel's left axis that carries its shaded regions, reference levels and points
    return {
      id: "__marks" + p, name: "__marks" + p, type: "line", xAxisIndex: p, yAxisIndex: yIndex, data: [],
      symbol: "none", silent: true, z: 4,
      markLine: {
        symbol: ["none", "none"], silent: false, animation: false, data: markLineData(spec, panel, p, state),
      },
      markArea: { silent: true, animation: false, data: regionAreas(panel) },
      markPoint: { animation: false, data: markPointData(spec, panel, p, state) },
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

  /**
   * The whole ECharts option of one spec; `width` is the element's width in pixels (title truncation,
   * margin labels). Also the chart's label state (axis rooms, margin texts, their offsets) `place` moves.
   */
  function buildOption(spec, width) {
    var box = layout(spec);
    var state = labelState(spec, width);
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
      var hasRight = hasRightAxis(panel);
      option.grid.push({
        id: "g" + p, left: state.left.room, right: state.right, top: box.panels[p][0], height: box.panels[p][1],
      });
      option.xAxis.push({
        id: "x" + p, type: "category", gridIndex: p, data: spec.x.slice(), boundaryGap: hasBars || !box.date,
        axisLabel: { show: p === last, hideOverlap: true, rotate: box.rotate ? 30 : 0 },
        axisTick: { show: p === last, alignWithLabel: true },
      });
      var left = yCount;
      state.yAxes[p] = left;
      option.yAxis.push(primaryAxis(panel, p, left, hasRight, state.left.gap));
      yCount += 1;
      var right = left;
      if (hasRight) {
        right = yCount;
        option.yAxis.push(secondaryAxis(panel, p, right, state.rightAxis.gap));
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
        option.series.push(marksSeries(spec, panel, p, left, state));
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
    return { option: option, height: box.height, state: state };
  }

  /** What the layout of a chart `width` px wide needs: axis rooms, margin label texts and their offsets. */
  function labelState(spec, width) {
    var rightAxis = axisRoom(spec, true);
    var edges = edgeLayout(spec, width, rightAxis);
    return {
      width: width, left: axisRoom(spec, false), rightAxis: rightAxis, texts: edges.texts, right: edges.right,
      columns: edges.columns, yAxes: [], offsets: spec.panels.map(function () { return []; }),
    };
  }

  function marksPatch(spec, state) {
    // the marks series again, with the labels' current texts and offsets
    var patch = [];
    spec.panels.forEach(function (panel, p) {
      if ((panel.lines || []).length || (panel.points || []).length) {
        patch.push({
          id: "__marks" + p,
          markLine: { data: markLineData(spec, panel, p, state) },
          markPoint: { data: markPointData(spec, panel, p, state) },
        });
      }
    });
    return patch;
  }

  /** Where each margin label of panel `p` goes now (labels.py's rule, on the drawn plot area). */
  function panelOffsets(chart, spec, state, p) {
    var labels = (spec.edge_labels || [])[p] || [];
    if (!labels.length) return [];
    var grid = chart.getModel().getComponent("grid", p);
    var rect = grid && grid.coordinateSystem && grid.coordinateSystem.getRect();
    if (!rect) return null;
    var yIndex = state.yAxes[p];
    var anchors = labels.map(function (label) { return chart.convertToPixel({ yAxisIndex: yIndex }, label.y); });
    if (anchors.some(function (a) { return !isFinite(a); })) return null;
    var heights = state.texts[p].map(function (text) { return text.split("\n").length * LABEL_LINE; });
    var centres = spread(anchors, heights, rect.y, rect.y + rect.height, LABEL_GAP);
    var column = rect.x + rect.width + state.columns[p] + COLUMN_PAD;
    return labels.map(function (label, n) {
      var dx = state.columns[p];
      if (label.kind === "point") {
        var px = chart.convertToPixel({ gridIndex: p }, [spec.x.length - 1, label.y])[0];
        dx = column - px - POINT_RADIUS - POINT_BORDER / 2; // "right" starts it past the symbol and its border
      }
      return [Math.round(dx * 10) / 10, Math.round((centres[n] - anchors[n]) * 10) / 10];
    });
  }

  /** After a layout: the labels where the rule puts them; redraws only when one has to move. */
  function place(el, chart, spec, state) {
    if (chart.isDisposed()) return;
    var moved = false;
    for (var p = 0; p < spec.panels.length; p += 1) {
      var offsets = panelOffsets(chart, spec, state, p);
      if (offsets === null) return;
      if (JSON.stringify(offsets) !== JSON.stringify(state.offsets[p])) moved = true;
      state.offsets[p] = offsets;
    }
    if (!moved) {
      el.dataset.labels = "placed";
      return;
    }
    el.dataset.labels = "moving";
    window.requestAnimationFrame(function () {
      // after ECharts' own "finished" dispatch: an option set inside it is not drawn when nothing animates
      if (!chart.isDisposed()) chart.setOption({ series: marksPatch(spec, el.stockdeskLabels.state) });
    });
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
      el.dataset.labels = "moving";
      chart.setOption(built.option);
      el.stockdeskLabels = { spec: spec, state: built.state };
      chart.on("finished", function () { place(el, chart, spec, el.stockdeskLabels.state); });
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
    var width = el.clientWidth;
    var update = { title: { textStyle: { width: Math.max(width - 16, 80) } } };
    var labels = el.stockdeskLabels;
    if (labels && labels.state.width !== width) {
      // the margin labels wrapped for the new width, the margin they need; placed again after the layout
      var fresh = labelState(labels.spec, width);
      fresh.yAxes = labels.state.yAxes;
      fresh.offsets = labels.state.offsets;
      labels.state = fresh;
      el.dataset.labels = "moving";
      update.grid = labels.spec.panels.map(function (_, p) { return { id: "g" + p, right: fresh.right }; });
      update.series = marksPatch(labels.spec, fresh);
    }
    chart.setOption(update);
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

  window.StockdeskCharts = {
    render: render, renderAll: renderAll, buildOption: buildOption, spread: spread, wrap: wrap,
  };

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
