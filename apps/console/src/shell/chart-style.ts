/** Text size of chart axes (px); legends use the same so a chart reads as one size. */
export const CHART_FONT_SIZE = 11;

export const CHART_LEGEND_STYLE = { fontSize: CHART_FONT_SIZE } as const;
