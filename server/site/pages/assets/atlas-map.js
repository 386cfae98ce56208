// The atlas page's map (server/site/pages/atlas.ts): a same-origin module, the page's only script.
// It reads the page's JSON data block (hotspots, tiles, where Leaflet is), loads Leaflet from the
// platform and draws the map in place of the box's fallback text. Names go in as text, never HTML.
const data = JSON.parse(document.getElementById('atlas-data').textContent);
const box = document.getElementById('atlas-map');
const L = await import(data.leaflet);

const text = (s) => {
  const span = document.createElement('span');
  span.textContent = s;
  return span;
};

box.textContent = '';
const map = L.map(box, { scrollWheelZoom: false });
const tiles = L.tileLayer(data.tiles.url, { maxZoom: 19 });
tiles.addTo(map);
// Leaflet writes attributions as HTML: the configured text goes in as the text of an element.
if (data.tiles.attribution) map.attributionControl.addAttribution(text(data.tiles.attribution).outerHTML);
const points = [];
for (const h of data.hotspots) {
  const at = [h.lat, h.lng];
  points.push(at);
  const label = document.createElement('div');
  const name = document.createElement('strong');
  name.textContent = h.name;
  label.append(name);
  if (h.category) label.append(document.createElement('br'), text(h.category));
  L.marker(at, { title: h.name, alt: h.name }).addTo(map).bindPopup(label);
}
if (points.length > 1) map.fitBounds(L.latLngBounds(points), { padding: [24, 24], maxZoom: 15 });
else map.setView(points[0] ?? [0, 0], points.length ? 13 : 1);
