// A histogram of durations for GET /metrics that counts an observation without prom-client's
// per-call work, for the series the HTTP thread observes on every request (request durations,
// render durations). prom-client's Histogram finds a series by its label object on every
// observation, bound or not: a string built from the labels, a lookup by it and a check of
// every label name, about 0.5 us of each request (measured: ServiceMetrics.answered 0.95 us a
// request with prom-client's counter and histogram). Here a series is found once, by the caller,
// and an observation is a bucket search and three additions. At a scrape it gives prom-client's
// registry the values prom-client's own Histogram gives, so the exposition is the same text
// (test/server/duration-histogram.test.ts compares the two over the same observations).
import type { Registry as MetricRegistry } from "prom-client";

/** One series: its labels, its observations per bucket (not cumulative), their sum and count. */
interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly perBucket: Float64Array;
  sum: number;
  count: number;
}

/** What the registry reads of a metric: a value of a series, as prom-client's metrics give it. */
interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Readonly<Record<string, string>>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

/** The series of one label set, to observe durations in. */
export interface DurationSeries {
  observe(seconds: number): void;
}

export class DurationHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  /** In the order of their first observation, as prom-client's Histogram lists them. */
  private readonly observed: Series[] = [];
  /** Every series made, by its labels' values (made once; the caller keeps the series). */
  private readonly byLabels = new Map<string, DurationSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly upperBounds: readonly number[],
    registry: MetricRegistry,
  ) {
    registry.registerMetric(this as never);
  }

  /** The series of these label values (in `labelNames` order); the same one for the same values. */
  labels(...values: string[]): DurationSeries {
    const key = values.join("\u0000");
    const made = this.byLabels.get(key);
    if (made) return made;
    const series: Series = {
      labels: Object.fromEntries(this.labelNames.map((name, at) => [name, values[at] as string])),
      perBucket: new Float64Array(this.upperBounds.length),
      sum: 0,
      count: 0,
    };
    const bounds = this.upperBounds;
    const observed = this.observed;
    const observer: DurationSeries = {
      observe(seconds) {
        if (!Number.isFinite(seconds))
          throw new TypeError(`Value is not a valid number: ${seconds}`);
        if (series.count === 0) observed.push(series);
        let at = 0;
        while (at < bounds.length && seconds > (bounds[at] as number)) at += 1;
        if (at < bounds.length) series.perBucket[at] = (series.perBucket[at] as number) + 1;
        series.sum += seconds;
        series.count += 1;
      },
    };
    this.byLabels.set(key, observer);
    return observer;
  }

  /** What the registry writes at a scrape: `_bucket` lines (cumulative, then `+Inf`), `_sum`, `_count`. */
  getForPromString(): {
    name: string;
    help: string;
    type: string;
    values: ExportedValue[];
    aggregator: string;
  } {
    const bucketName = `${this.name}_bucket`;
    const values: ExportedValue[] = [];
    for (const series of this.observed) {
      const sharedLabels = series.labels;
      let cumulative = 0;
      this.upperBounds.forEach((le, at) => {
        cumulative += series.perBucket[at] as number;
        values.push({
          labels: { le },
          sharedLabels,
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
        });
      });
      values.push(
        {
          labels: { le: "+Inf" },
          sharedLabels,
          value: series.count,
          metricName: bucketName,
          exemplar: null,
        },
        {
          labels: {},
          sharedLabels,
          value: series.sum,
          metricName: `${this.name}_sum`,
          exemplar: undefined,
        },
        {
          labels: {},
          sharedLabels,
          value: series.count,
          metricName: `${this.name}_count`,
          exemplar: undefined,
        },
      );
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    };
  }

  /** The same values with each series' labels in every value's own, as prom-client's `get`. */
  get(): Omit<ReturnType<DurationHistogram["getForPromString"]>, "values"> & {
    values: Omit<ExportedValue, "sharedLabels">[];
  } {
    const data = this.getForPromString();
    const values = data.values.map(({ sharedLabels, labels, ...value }) => ({
      ...value,
      labels: { ...labels, ...sharedLabels },
    }));
    return { ...data, values };
  }

  /** Forgets every observation (the registry's resetMetrics). */
  reset(): void {
    for (const series of this.observed) {
      series.perBucket.fill(0);
      series.sum = 0;
      series.count = 0;
    }
    this.observed.length = 0;
  }
}
