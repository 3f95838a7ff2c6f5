import { expect } from 'chai';
import { DurationHistogram } from './metrics.ts';

describe('request-duration histogram', function () {
  it('writes cumulative buckets, sum and count per method, route and status, le first', function () {
    const histogram = new DurationHistogram('d_seconds', 'Durations.', [0.01, 0.1, 1]);
    for (const seconds of [0.005, 0.01, 0.05, 2]) histogram.observe('GET', '/api/bars/:symbol', 200, seconds);
    histogram.observe('POST', '/api/login', 401, 0.2);
    expect(histogram.text().split('\n')).to.deep.equal([
      '# HELP d_seconds Durations.',
      '# TYPE d_seconds histogram',
      'd_seconds_bucket{le="0.01",method="GET",route="/api/bars/:symbol",status="200"} 2',
      'd_seconds_bucket{le="0.1",method="GET",route="/api/bars/:symbol",status="200"} 3',
      'd_seconds_bucket{le="1",method="GET",route="/api/bars/:symbol",status="200"} 3',
      'd_seconds_bucket{le="+Inf",method="GET",route="/api/bars/:symbol",status="200"} 4',
      'd_seconds_sum{method="GET",route="/api/bars/:symbol",status="200"} 2.065',
      'd_seconds_count{method="GET",route="/api/bars/:symbol",status="200"} 4',
      'd_seconds_bucket{le="0.01",method="POST",route="/api/login",status="401"} 0',
      'd_seconds_bucket{le="0.1",method="POST",route="/api/login",status="401"} 0',
      'd_seconds_bucket{le="1",method="POST",route="/api/login",status="401"} 1',
      'd_seconds_bucket{le="+Inf",method="POST",route="/api/login",status="401"} 1',
      'd_seconds_sum{method="POST",route="/api/login",status="401"} 0.2',
      'd_seconds_count{method="POST",route="/api/login",status="401"} 1',
      '',
    ]);
  });

  it('escapes backslashes, quotes and line breaks in label values', function () {
    const histogram = new DurationHistogram('d_seconds', 'Durations.', [1]);
    histogram.observe('GET', 'a\\b"c\nd', 200, 0.5);
    expect(histogram.text()).to.include('d_seconds_count{method="GET",route="a\\\\b\\"c\\nd",status="200"} 1');
  });
});
