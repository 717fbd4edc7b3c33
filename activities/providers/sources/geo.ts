import proj4 from 'proj4';

/** Rijksdriehoeksstelsel (EPSG:28992), the Dutch national grid, with the datum shift to WGS84. */
const RD_NEW =
  '+proj=sterea +lat_0=52.15616055555555 +lon_0=5.38763888888889 +k=0.9999079 +x_0=155000 +y_0=463000 +ellps=bessel ' +
  '+towgs84=565.417,50.3319,465.552,-0.398957,0.343988,-1.8774,4.0725 +units=m +no_defs';

export function rdToWgs84(x: number, y: number): { lat: number; lng: number } {
  const [lng, lat] = proj4(RD_NEW, 'WGS84', [x, y]);
  return { lat: lat!, lng: lng! };
}

/** RD coordinates lie within x 0..300 km, y 289..629 km; anything else is not RD. */
export function looksLikeRd(x: number, y: number): boolean {
  return x > -7000 && x < 300000 && y > 289000 && y < 629000;
}

/**
 * A point from "x y" (RD metres) or "lat lng" / "POINT(lng lat)" (WGS84) text, whichever it is.
 * Polygons give their first vertex's neighbourhood: the mean of their points.
 */
export function pointFromText(text: string): { lat: number; lng: number } | null {
  const nums = (text.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
  if (nums.length < 2) return null;
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i + 1 < nums.length; i += 2) pairs.push([nums[i]!, nums[i + 1]!]);
  const mx = pairs.reduce((s, p) => s + p[0], 0) / pairs.length;
  const my = pairs.reduce((s, p) => s + p[1], 0) / pairs.length;
  if (looksLikeRd(mx, my)) return rdToWgs84(mx, my);
  if (/POINT/i.test(text)) return { lat: my, lng: mx }; // WKT is lng lat
  if (Math.abs(mx) <= 90 && Math.abs(my) <= 180) return { lat: mx, lng: my };
  return null;
}
