; Zenotravel, STRIPS with typing: the domain of the 3rd International Planning Competition (IPC 2002,
; D. Long and M. Fox; "The 3rd International Planning Competition: Results and Analysis", JAIR 20,
; 2003), as its `zenotravel-strips-automatic` track defined it. Written for genplan from that
; published definition (same types, predicates and action schemas; our layout): no copy under a
; licence that allows one was found. Checked action by action against the copies in
; potassco/pddl-instances ipc-2002/domains/zenotravel-strips-automatic/domain.pddl (commit
; cf19edf7c53d1540ddbb396c642595e0926ee552, no licence file) and AI-Planning/pddl-generators
; zenotravel/domain.pddl (commit a0de95f1ddd67a1c5ba67d3a5107f855722f09b0, no licence file; the
; generators PlanGPT used).
(define (domain zeno-travel)
  (:requirements :strips :typing)
  (:types aircraft person city flevel - object)
  (:predicates (at ?x - (either person aircraft) ?c - city)
               (in ?p - person ?a - aircraft)
               (fuel-level ?a - aircraft ?l - flevel)
               (next ?l1 ?l2 - flevel))

  (:action board
    :parameters (?p - person ?a - aircraft ?c - city)
    :precondition (and (at ?p ?c) (at ?a ?c))
    :effect (and (not (at ?p ?c)) (in ?p ?a)))

  (:action debark
    :parameters (?p - person ?a - aircraft ?c - city)
    :precondition (and (in ?p ?a) (at ?a ?c))
    :effect (and (not (in ?p ?a)) (at ?p ?c)))

  (:action fly
    :parameters (?a - aircraft ?c1 ?c2 - city ?l1 ?l2 - flevel)
    :precondition (and (at ?a ?c1) (fuel-level ?a ?l1) (next ?l2 ?l1))
    :effect (and (not (at ?a ?c1)) (at ?a ?c2) (not (fuel-level ?a ?l1)) (fuel-level ?a ?l2)))

  (:action zoom
    :parameters (?a - aircraft ?c1 ?c2 - city ?l1 ?l2 ?l3 - flevel)
    :precondition (and (at ?a ?c1) (fuel-level ?a ?l1) (next ?l2 ?l1) (next ?l3 ?l2))
    :effect (and (not (at ?a ?c1)) (at ?a ?c2) (not (fuel-level ?a ?l1)) (fuel-level ?a ?l3)))

  (:action refuel
    :parameters (?a - aircraft ?c - city ?l - flevel ?l1 - flevel)
    :precondition (and (fuel-level ?a ?l) (next ?l ?l1) (at ?a ?c))
    :effect (and (fuel-level ?a ?l1) (not (fuel-level ?a ?l)))))
