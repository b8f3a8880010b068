/**
 * The metrics against published reference values: NLTK's documented examples
 * (nltk.translate bleu_score, gleu_score, meteor_score docstrings and its
 * test_meteor unit test, values checked with NLTK 3.8; METEOR with WordNet
 * switched off, which these examples do not need), and ROUGE-N by Lin's
 * definition worked by hand.
 */

import { describe, expect, it } from '@jest/globals'
import { bleu, gleu, meteor, rougeN } from '../../src/assertions/overlap-metrics.js'

const words = (s: string) => s.split(' ')

// the sentences of NLTK's docstrings (from Papineni et al.'s paper)
const hyp1 = words('It is a guide to action which ensures that the military always obeys the commands of the party')
const hyp2 = words('It is to insure the troops forever hearing the activity guidebook that party direct')
const ref1 = words('It is a guide to action that ensures that the military will forever heed Party commands')
const ref2 = words('It is the guiding principle which guarantees the military forces always being under the command of the Party')
const ref3 = words('It is the practical guide for the army always to heed the directions of the party')
const cat = words('the cat sat on the mat')

describe('BLEU', () => {
  it.each<[string, string[], string[][], number]>([
    ['NLTK sentence_bleu docstring, three references', hyp1, [ref1, ref2, ref3], 0.5045666840058485],
    ['one reference', hyp1, [ref1], 0.41180376356915777],
    ['one word changed', words('the cat sat on a mat'), [cat], 0.537284965911771],
    ['identical', cat, [cat], 1]
  ])('%s', (_name, candidate, references, expected) => {
    expect(bleu(candidate, references)).toBeCloseTo(expected, 12)
  })

  it('is 0 when an n-gram order has no match (unsmoothed, as in the paper)', () => {
    expect(bleu(words('dogs run in the park'), [cat])).toBe(0)
  })

  it('takes the brevity penalty from the reference closest in length', () => {
    // 5 words against references of 5 and 2: the 5-word one gives no penalty
    expect(bleu(words('the cat sat on mat'), [words('the cat sat on mat'), words('cat mat')])).toBeCloseTo(1, 12)
  })
})

describe('GLEU', () => {
  it.each<[string, string[], string[][], number]>([
    ['NLTK sentence_gleu docstring, hyp1', hyp1, [ref1], 0.4393939393939394],
    ['NLTK sentence_gleu docstring, hyp2', hyp2, [ref1], 0.1206896551724138],
    ['the best of three references', hyp1, [ref1, ref2, ref3], 0.4393939393939394],
    ['identical', cat, [cat], 1],
    ['nothing shared', words('a b'), [words('c d')], 0]
  ])('%s', (_name, candidate, references, expected) => {
    expect(gleu(candidate, references)).toBeCloseTo(expected, 12)
  })
})

describe('METEOR', () => {
  it.each<[string, string[], string[][], number]>([
    ['NLTK meteor_score docstring', hyp1, [ref1], 0.6944444444444445],
    ['NLTK test_meteor (one chunk of four)', words('this is a test'), [words('this is a test'), words('this istest')], 0.9921875],
    ['hyp2 against ref1', hyp2, [ref1], 0.3035391371738569],
    ['stems match: cats/cat, mats/mat', cat, [words('the cats are sitting on the mats')], 0.7014492753623188],
    ['an inserted word splits the chunks', words('the cat was sitting on the mat'), [cat], 0.7934426229508196],
    ['nothing shared', words('a b'), [words('c d')], 0]
  ])('%s', (_name, candidate, references, expected) => {
    expect(meteor(candidate, references)).toBeCloseTo(expected, 12)
  })
})

describe('ROUGE-N (recall)', () => {
  it.each<[string, string[], string[], number, number]>([
    // reference unigrams: the×2 cat sat on mat; the candidate has the×1 cat on mat → 4 of 6
    ['unigrams, clipped', words('a cat on the mat'), cat, 1, 4 / 6],
    // reference bigrams: the-cat cat-sat sat-on on-the the-mat; found: the-cat, on-the, the-mat
    ['bigrams', words('the cat lay on the mat'), cat, 2, 3 / 5],
    ['identical', cat, cat, 1, 1],
    ['extra candidate words do not lower recall', words('the cat sat on the mat all day'), cat, 1, 1],
    ['reference shorter than n', cat, words('cat'), 2, 0]
  ])('%s', (_name, candidate, reference, n, expected) => {
    expect(rougeN(candidate, reference, n)).toBeCloseTo(expected, 12)
  })
})

/**
 * src/assertions/overlap-metrics.ts on small token lists whose values can be
 * worked by hand (each case shows the arithmetic): the options, the tie rules
 * and the alignment details the published examples do not reach.
 */

describe('n-grams', () => {
  it('keep token boundaries: "ab c" and "a bc" share no bigram', () => {
    expect(rougeN(['ab', 'c'], ['a', 'bc'], 2)).toBe(0)
    expect(rougeN(['a', 'b', 'c'], ['a', 'b', 'c'], 3)).toBe(1)
  })

  it('count repeats, and clip them to the other side', () => {
    // reference: x×3; the candidate has x×2 → 2 of 3
    expect(rougeN(words('x x'), words('x x x'))).toBeCloseTo(2 / 3, 12)
    // candidate x×3 against reference x×2 → all 2 found
    expect(rougeN(words('x x x'), words('x x'))).toBe(1)
  })
})

describe('BLEU', () => {
  it('takes the maximum order asked for, and the brevity penalty of a short candidate', () => {
    // "the cat the dog" against "the cat sat on the mat": unigrams 3/4 (the×2, cat), bigrams 1/3 (the-cat);
    // geometric mean √(3/4 · 1/3) = 1/2; brevity exp(1 − 6/4)
    const candidate = words('the cat the dog')
    expect(bleu(candidate, [words('the cat sat on the mat')], 2)).toBeCloseTo(0.5 * Math.exp(-0.5), 12)
    expect(bleu(candidate, [words('the cat sat on the mat')], 1)).toBeCloseTo(0.75 * Math.exp(-0.5), 12)
    // "the cat": every n-gram matches, only the brevity penalty exp(1 − 6/2) remains
    expect(bleu(words('the cat'), [words('the cat sat on the mat')], 2)).toBeCloseTo(Math.exp(-2), 12)
  })

  it('clips each n-gram to its largest count in any one reference', () => {
    // candidate x×4: reference counts 1 and 2 → clipped to 2 → unigram precision 2/4; brevity 1 (4 > closest 2)
    expect(bleu(words('x x x x'), [words('x y'), words('x x')], 1)).toBeCloseTo(0.5, 12)
    expect(bleu(words('x x x x'), [words('x x'), words('x y')], 1)).toBeCloseTo(0.5, 12)
  })

  it('on a tie in length takes the shorter reference, in either order', () => {
    // 4 words, references of 3 and 5: the 3-word one is closest on the tie, so no brevity penalty
    const candidate = words('a b c d')
    expect(bleu(candidate, [words('a b c'), words('a b c d e')])).toBeCloseTo(1, 12)
    expect(bleu(candidate, [words('a b c d e'), words('a b c')])).toBeCloseTo(1, 12)
    // the closer reference wins over the shorter one: 5 words is 1 away, 2 words is 2 away → exp(1 − 5/4)
    expect(bleu(candidate, [words('a b'), words('a b c d e')])).toBeCloseTo(Math.exp(-0.25), 12)
    expect(bleu(candidate, [words('a b c d e'), words('a b')])).toBeCloseTo(Math.exp(-0.25), 12)
  })

  it('is 0 for an empty candidate or no references', () => {
    expect(bleu([], [words('a b')])).toBe(0)
    expect(bleu(words('a b'), [])).toBe(0)
  })
})

describe('GLEU', () => {
  it('sums the orders between minN and maxN over the larger n-gram total', () => {
    // "the cat the dog" / "the cat sat on the mat": unigrams 3 shared (the×2, cat), bigrams 1 (the-cat);
    // candidate totals 4 + 3 = 7, reference 6 + 5 = 11 → 4/11
    const candidate = words('the cat the dog')
    const reference = words('the cat sat on the mat')
    expect(gleu(candidate, [reference], 1, 2)).toBeCloseTo(4 / 11, 12)
    // bigrams only: 1 shared of max(3, 5)
    expect(gleu(candidate, [reference], 2, 2)).toBeCloseTo(1 / 5, 12)
    // unigrams only: 3 of max(4, 6)
    expect(gleu(candidate, [reference], 1, 1)).toBeCloseTo(3 / 6, 12)
  })

  it('divides by the candidate total when the candidate is the longer', () => {
    // "a b c x y" / "a b": unigrams 2 of max(5, 2) → 2/5
    expect(gleu(words('a b c x y'), [words('a b')], 1, 1)).toBeCloseTo(2 / 5, 12)
  })

  it('is 0 when there is nothing to count', () => {
    expect(gleu([], [[]])).toBe(0)
    expect(gleu(words('a b'), [])).toBe(0)
  })

  it('keeps the best reference, wherever it is in the list', () => {
    expect(gleu(words('a b'), [words('a b'), words('c d')], 1, 1)).toBe(1)
    expect(gleu(words('a b'), [words('c d'), words('a b')], 1, 1)).toBe(1)
  })
})

describe('ROUGE-N', () => {
  it('is 0 against an empty reference', () => {
    expect(rougeN(words('a b'), [])).toBe(0)
  })
})

describe('METEOR', () => {
  it('matches a candidate word once: exactly first, never again by its stem', () => {
    // "cat" against "cat cats": one match, P = 1, R = 1/2; F = 0.5 / (0.9 + 0.05) = 10/19; one chunk of one → penalty 0.5
    expect(meteor(['cat'], [words('cat cats')])).toBeCloseTo(5 / 19, 12)
    expect(meteor(['a'], [words('a a')])).toBeCloseTo(5 / 19, 12)
  })

  it('matches by stem what exact matching left', () => {
    // "cats" against "cat": P = R = 1, F = 1; penalty 0.5 · 1³
    expect(meteor(['cats'], [['cat']])).toBeCloseTo(0.5, 12)
  })

  it('pairs a repeated word with the last free reference word of the same form', () => {
    // "a x a" against "a a": walking from the end, candidate 2 takes reference 1, candidate 0 takes reference 0;
    // pairs (0,0) (2,1): not adjacent in the candidate → 2 chunks. P = 2/3, R = 1,
    // F = (2/3) / (0.9 · 2/3 + 0.1) = 20/21, penalty 0.5 · (2/2)³ = 0.5
    expect(meteor(words('a x a'), [words('a a')])).toBeCloseTo(10 / 21, 12)
    // "a a x" against "x a a": pairs (0,1) (1,2) (2,0) → chunks [(0,1),(1,2)] and [(2,0)] = 2; P = R = 1, penalty 0.5 · (2/3)³
    expect(meteor(words('a a x'), [words('x a a')])).toBeCloseTo(1 - 0.5 * (2 / 3) ** 3, 12)
  })

  it('takes alpha, beta and gamma as options', () => {
    // "the cat was sitting on the mat" against "the cat sat on the mat": 5 matches in 2 chunks, P = 5/7, R = 5/6;
    // alpha 0.5 makes F the harmonic mean 10/13; penalty 0.25 · (2/5)¹ = 0.1 → 9/13
    const candidate = words('the cat was sitting on the mat')
    const reference = words('the cat sat on the mat')
    expect(meteor(candidate, [reference], { alpha: 0.5, beta: 1, gamma: 0.25 })).toBeCloseTo(9 / 13, 12)
    // only gamma changed: F = (25/42) / (0.9 · 5/7 + 0.1 · 5/6) = 50/61, no penalty
    expect(meteor(candidate, [reference], { gamma: 0 })).toBeCloseTo(50 / 61, 12)
  })

  it('keeps the best reference, and is 0 without any', () => {
    expect(meteor(words('a b'), [words('c d'), words('a b')])).toBeCloseTo(meteor(words('a b'), [words('a b')]), 12)
    expect(meteor(words('a b'), [words('a b')])).toBeCloseTo((1 - 0.5 * (1 / 2) ** 3) * 1, 12)
    expect(meteor(words('a b'), [])).toBe(0)
  })
})

describe('bleu with no match at an order', () => {
  it('is 0, not NaN, for a candidate shorter than maxN (its longer orders have no n-grams at all)', () => {
    expect(bleu(['a', 'b'], [['c', 'd']])).toBe(0)
    expect(bleu(['a', 'b'], [['a', 'b']])).toBe(0)
    expect(bleu(['a', 'b'], [['a', 'b']], 2)).toBe(1)
  })
})
