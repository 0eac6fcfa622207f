/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Welch's t-test's p-value with Boost.Math's Student's t distribution
 * (Debian's libboost-dev, header-only), the one C++ of the history room.
 * E.g. means 100 and 102, variances 1 and 1, 20 points each: t = -6.32,
 * 38 degrees of freedom (Welch-Satterthwaite), p = 2.1e-7.
 */
#include <cmath>

#include <boost/math/distributions/students_t.hpp>

#include <hvb/history.h>

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
