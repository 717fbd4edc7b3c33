import { estimateEuros, extractMeasures, parseLocaleNumber } from '../../domain/classification/amounts';
import { RulesClassifier, RULES_MODEL } from '../../domain/classification/rules';
import { DEFAULT_PROFILE } from '../../domain/classification/default-profile';

describe('amounts and units in Dutch and English notices', () => {
  test.each([
    ['14,5', 14.5],
    ['1.200', 1200],
    ['1,200', 1200],
    ['2.5', 2.5],
    ['14.500.000', 14_500_000],
    ['1.234,56', 1234.56],
    ['1,234.56', 1234.56],
    ['0.750', 0.75],
    ['48', 48],
  ])('parseLocaleNumber(%s) = %d', (text, value) => expect(parseLocaleNumber(text)).toBe(value));

  test('amounts with multipliers, before or after the number', () => {
    expect(extractMeasures('geraamde bouwsom EUR 2,5 mln').amountEur).toBe(2_500_000);
    expect(extractMeasures('budget € 14.500.000 excl. btw').amountEur).toBe(14_500_000);
    expect(extractMeasures('a 2.5 million euro contract').amountEur).toBe(2_500_000);
    expect(extractMeasures('EUR 750k').amountEur).toBe(750_000);
    expect(extractMeasures('investering van 1,2 miljard euro').amountEur).toBe(1_200_000_000);
  });

  test('floor area and dwellings', () => {
    expect(extractMeasures('circa 1.200 m2 kantoorruimte')).toMatchObject({ areaM2: 1200, amountEur: null });
    expect(extractMeasures('3.800 m² school')).toMatchObject({ areaM2: 3800 });
    expect(extractMeasures('48 woningen met parkeerkelder')).toMatchObject({ dwellings: 48 });
    expect(extractMeasures('120 new homes')).toMatchObject({ dwellings: 120 });
    expect(extractMeasures('het kappen van 2 bomen')).toEqual({ amountEur: null, areaM2: null, dwellings: null });
  });

  test('one estimate in euros: amount before dwellings before area', () => {
    expect(estimateEuros({ amountEur: 1e6, areaM2: 5000, dwellings: 10 }).euros).toBe(1e6);
    expect(estimateEuros({ amountEur: null, areaM2: 5000, dwellings: 10 }).euros).toBe(2_500_000);
    expect(estimateEuros({ amountEur: null, areaM2: 1000, dwellings: null }).euros).toBe(1_500_000);
  });
});

describe('rules classifier', () => {
  const classifier = new RulesClassifier();
  const classify = (title: string, summary: string | null = null) =>
    classifier.classify({ title, summary, signalType: 'publication', language: 'nl', profile: DEFAULT_PROFILE });

  test('a housing permit application with an amount is relevant, with category, stage, size and reasons', async () => {
    const c = await classify(
      'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen, Merwedekanaalzone blok 4',
      'Ontvangen aanvraag voor het bouwen van 48 woningen met warmtepompen (circa 5.400 m2 bvo), geraamde bouwsom EUR 14,5 mln.',
    );
    expect(c).toMatchObject({
      model: RULES_MODEL,
      commercialRelevance: true,
      projectCategory: 'residential',
      projectStage: 'permit_application',
      estimatedSize: 14_500_000,
    });
    expect(c.fitMatches).toContain('warmtepomp');
    expect(c.relevanceReasons.join(' ')).toMatch(/warmtepomp.*residential project.*permit application.*stated amount/);
    expect(c.confidence).toBeGreaterThan(0.8);
    expect(c.confidence).toBeLessThan(1);
  });

  test('a tree-felling permit is not relevant', async () => {
    const c = await classify('Kapvergunning: 2 bomen Amsterdamsestraatweg 12', 'Het kappen van 2 bomen.');
    expect(c).toMatchObject({ commercialRelevance: false, projectCategory: 'landscape', estimatedSize: null });
  });

  test('an English tender for installation work is relevant and sized from the floor area', async () => {
    const c = await classify(
      'Tender: installation works for new school building Amersfoort',
      'HVAC and electrical installation for a 3.800 m2 school building.',
    );
    expect(c).toMatchObject({ commercialRelevance: true, projectCategory: 'education', projectStage: 'tender', estimatedSize: 3800 * 1500 });
  });

  test('text without evidence is not relevant and says so, with low confidence', async () => {
    const c = await classify('Gemeenteraad vergadert op dinsdag');
    expect(c).toMatchObject({ commercialRelevance: false, projectCategory: 'other', projectStage: null, confidence: 0.3 });
    expect(c.relevanceReasons).toEqual(['no product, category or size evidence']);
  });

  test('it is deterministic', async () => {
    const a = await classify('Verleende omgevingsvergunning: renovatie kantoorpand, 1.200 m2');
    const b = await classify('Verleende omgevingsvergunning: renovatie kantoorpand, 1.200 m2');
    expect(a).toEqual(b);
  });
});
