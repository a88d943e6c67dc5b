import { useCallback, useEffect, useRef, useState } from 'react';
import type { ChartRange, Dashboard, LoadSeries } from '@portico/schema';
import { apiGet } from '../../api/api-client.js';
import { usePolling } from './use-polling.js';
import { DashboardView } from './dashboard-view.js';
import { DeviceNotices } from './device-notices.js';
import { DEFAULT_LOAD_RANGE, loadRefreshMs } from './load-chart-model.js';

/** Spec §2: the dashboard refreshes every 5 seconds while it is shown. */
const DASHBOARD_REFRESH_MS = 5000;

/** The dashboard (spec §3): polls the device and hands the figures to the view. */
export default function DashboardPage() {
  const [data, setData] = useState<Dashboard | null>(null);
  const [failed, setFailed] = useState(false);
  const [range, setRange] = useState<ChartRange>(DEFAULT_LOAD_RANGE);
  const [series, setSeries] = useState<LoadSeries | null>(null);
  const rangeRef = useRef(range);
  rangeRef.current = range;
  const seriesRef = useRef(series);
  seriesRef.current = series;

  usePolling(
    useCallback(async () => {
      try {
        setData(await apiGet<Dashboard>('dashboard'));
        setFailed(false);
      } catch (error) {
        // The API client shows the notice; the last figures stay on screen.
        setFailed(true);
        throw error;
      }
    }, []),
    DASHBOARD_REFRESH_MS,
  );

  usePolling(
    useCallback(async () => {
      const asked = rangeRef.current;
      const reply = await apiGet<LoadSeries>('status/loadavg', { range: asked });
      // A slow answer for a range no longer selected is dropped.
      if (rangeRef.current !== asked) return;
      // Read by the interval right after this run, before React has rendered the new state.
      seriesRef.current = reply;
      setSeries(reply);
    }, []),
    useCallback(() => loadRefreshMs(seriesRef.current), []),
    range,
  );

  // Fetch the chart code alongside the first figures instead of after them.
  useEffect(() => {
    void import('./load-chart.js');
  }, []);

  const chooseRange = useCallback((next: ChartRange) => {
    if (next === rangeRef.current) return;
    setSeries(null);
    setRange(next);
  }, []);

  return <DashboardView data={data} failed={failed} range={range} series={series} onRange={chooseRange} notices={<DeviceNotices />} />;
}
