/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Welch's t-test's p-value, and the CI of a difference of means, with
 * Boost.Math's Student's t distribution (Debian's libboost-dev,
 * header-only), the one C++ of the history room.  E.g. means 100 and
 * 102, variances 1 and 1, 20 points each: t = -6.32, 38 degrees of
 * freedom (Welch-Satterthwaite), p = 2.1e-7; the 95% CI of 102 - 100 is
 * 2 +- 2.024 x 0.316 = [1.36, 2.64].
 */
#include <cmath>

#include <boost/math/distributions/students_t.hpp>

#include <hvb/changes.h>

extern "C" double hvb_welch_p(double m1, double v1, size_t n1, double m2,
                              double v2, size_t n2)
{
    if ( n1 < 2 || n2 < 2 )
        return 1.0;
    double a = v1 / static_cast<double>(n1), b = v2 / static_cast<double>(n2);
    double se2 = a + b;

    if ( !(se2 > 0) )
        return m1 == m2 ? 1.0 : 0.0; /* two constant segments */
    double t = (m1 - m2) / std::sqrt(se2);
    double df = se2 * se2 /
                (a * a / static_cast<double>(n1 - 1) +
                 b * b / static_cast<double>(n2 - 1));

    if ( !(df > 0) || !std::isfinite(t) )
        return 1.0;
    try
    {
        boost::math::students_t dist(df);

        return 2.0 *
               boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
    } catch ( ... )
    {
        return 1.0;
    }
}

extern "C" void hvb_welch_ci(double m1, double v1, size_t n1, double m2,
                             double v2, size_t n2, double level, double *lo,
                             double *hi)
{
    *lo = *hi = NAN;
    if ( n1 < 2 || n2 < 2 || !(level > 0 && level < 1) )
        return;
    double a = v1 / static_cast<double>(n1), b = v2 / static_cast<double>(n2);
    double se2 = a + b, d = m2 - m1;

    if ( !(se2 > 0) )
    {
        *lo = *hi = d; /* two constant segments */
        return;
    }
    double df = se2 * se2 /
                (a * a / static_cast<double>(n1 - 1) +
                 b * b / static_cast<double>(n2 - 1));

    if ( !(df > 0) )
        return;
    try
    {
        boost::math::students_t dist(df);
        double t = boost::math::quantile(dist, 0.5 + level / 2);

        *lo = d - t * std::sqrt(se2);
        *hi = d + t * std::sqrt(se2);
    } catch ( ... )
    {
    }
}
